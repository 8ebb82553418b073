// Ours: PosterRenderer as the service's render worker uses it (src/poster/worker.ts): one renderer
// and one FontLoader kept across posters, the JPEG encode included. It runs from the compiled
// dist/, as the service does in production (poster-peers.mjs builds it first when stale).
import { FontLoader } from '../../../dist/poster/fonts.js';
import { checkPosterSpec } from '../../../dist/poster/library.js';
import { PosterRenderer } from '../../../dist/render/poster.js';

/**
 * A renderer of `input.spec` (the spec as the API takes it): `render()` -> JPEG bytes; `renderStages()` adds stage times.
 * `subsampling`: the service's (4:4:4) unless given.
 */
export async function createOursRenderer(input, subsampling) {
  const spec = checkPosterSpec(input.spec);
  const fonts = new FontLoader();
  const renderer = new PosterRenderer(subsampling);
  await fonts.posterFonts();
  return {
    render: async () => renderer.render(spec, await fonts.posterFonts()),
    renderStages: async () => {
      const { bytes, timings } = renderer.renderTimed(spec, await fonts.posterFonts());
      return { bytes, ...timings };
    },
  };
}

/** Ours encoding at 4:2:0, as every peer does: the same encode work as theirs, not the service's poster. */
export const createOurs420Renderer = (input) => createOursRenderer(input, '4:2:0');

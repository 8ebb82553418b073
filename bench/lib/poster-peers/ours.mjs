// Ours, through the library API a user calls (src/poster/library.ts), from the compiled dist/ as
// the service runs in production (poster-peers.mjs builds it first when stale):
// - createPosterRenderer({ subsampling }): one renderer kept across posters (its faces, canvas,
//   encoder buffers and glyph cache), as the service's render workers keep theirs;
// - renderPoster(spec): the one-off call, which reads the faces and allocates its canvas and
//   buffers afresh on every poster.
// The stage rounds use the renderer the library wraps (PosterRenderer), which times its stages.
import { loadPosterFonts } from '../../../dist/poster/fonts.js';
import { checkPosterSpec, createPosterRenderer, renderPoster } from '../../../dist/poster/library.js';
import { PosterRenderer } from '../../../dist/render/poster.js';

/**
 * `createPosterRenderer({ subsampling })` rendering `input.spec` (the spec as the API takes it):
 * `render()` -> JPEG bytes; `renderStages()` adds stage times.
 */
export async function createLibraryRenderer(input, subsampling) {
  const library = createPosterRenderer({ subsampling });
  // Made at the first stage round, after the peak RSS was read: a second set of faces and a
  // second canvas are not the library renderer's memory.
  let timed;
  return {
    render: () => library.render(input.spec),
    renderStages: async () => {
      timed ??= { renderer: new PosterRenderer(subsampling), fonts: await loadPosterFonts(), spec: checkPosterSpec(input.spec) };
      const { bytes, timings } = timed.renderer.renderTimed(timed.spec, timed.fonts);
      return { bytes, ...timings };
    },
  };
}

/** The one-off `renderPoster(spec)`, the library's default encoding (4:4:4, the service's). */
export async function createOneOffRenderer(input) {
  return { render: () => renderPoster(input.spec) };
}

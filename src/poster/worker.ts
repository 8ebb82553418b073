/**
 * A render worker of the poster pool: renders one poster per message and replies with its JPEG
 * bytes. Writing the file is the main thread's job, which first checks the bytes against
 * POSTER_MAX_BYTES.
 *
 * The bytes are copied, not transferred: a transfer detaches the worker's buffer, and once any
 * buffer is detached V8 checks for detachment at every typed-array access the isolate makes from
 * then on. Renders took 3.8 % more instructions after the first transfer (750 M against 723 M a
 * 4:4:4 poster, callgrind), about 3 ms, where copying a poster's ~200 KB costs some microseconds.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { FontLoader } from './fonts.js';
import { PosterRenderer } from '../render/index.js';
import type { RenderJob, RenderReply } from './pool.js';

/** Answers the jobs sent to `port`; the faces, the band painted on and the encoder buffers serve every poster. */
function serveRenderJobs(port: MessagePort): void {
  const fonts = new FontLoader();
  const renderer = new PosterRenderer();
  port.on('message', (job: RenderJob) => {
    void (async (): Promise<RenderReply> => {
      try {
        const rendered = renderer.render(job.spec, await fonts.posterFonts());
        // A message copies a typed array's whole buffer: send one that holds exactly the poster.
        const bytes = rendered.byteOffset === 0 && rendered.byteLength === rendered.buffer.byteLength ? rendered : rendered.slice();
        return { id: job.id, ok: true, bytes };
      } catch (err) {
        return { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    })().then((reply) => port.postMessage(reply));
  });
}

if (parentPort) serveRenderJobs(parentPort);

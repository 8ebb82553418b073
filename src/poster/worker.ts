/**
 * A render worker of the poster pool: renders one poster per message and replies with its JPEG
 * bytes (transferred, not copied). Writing the file is the main thread's job, which first checks
 * the bytes against POSTER_MAX_BYTES.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { FontLoader } from './fonts.js';
import { PosterRenderer } from '../render/index.js';
import type { RenderJob, RenderReply } from './pool.js';

/** Answers the jobs sent to `port`; the faces, canvas and encoder buffers serve every poster. */
function serveRenderJobs(port: MessagePort): void {
  const fonts = new FontLoader();
  const renderer = new PosterRenderer();
  port.on('message', (job: RenderJob) => {
    void (async (): Promise<RenderReply> => {
      try {
        const rendered = renderer.render(job.spec, await fonts.posterFonts());
        // Transfer a buffer that holds exactly the poster, so nothing else crosses with it.
        const bytes = rendered.byteOffset === 0 && rendered.byteLength === rendered.buffer.byteLength ? rendered : rendered.slice();
        return { id: job.id, ok: true, bytes };
      } catch (err) {
        return { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
      }
    })().then((reply) => port.postMessage(reply, reply.ok ? [reply.bytes.buffer as ArrayBuffer] : []));
  });
}

if (parentPort) serveRenderJobs(parentPort);

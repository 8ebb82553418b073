/**
 * A render worker of the poster pool: writes one poster per message and replies with its file.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { writePoster } from './posterEncoder/poster.js';
import type { RenderJob, RenderReply } from './poster-pool.js';

parentPort?.on('message', (job: RenderJob) => {
  void (async (): Promise<RenderReply> => {
    try {
      const path = await writePoster(job.spec as Parameters<typeof writePoster>[0], job.publicDir);
      return { id: job.id, ok: true, result: { file: `posters/${basename(path)}`, bytes: (await stat(path)).size } };
    } catch (err) {
      return { id: job.id, ok: false, message: err instanceof Error ? err.message : String(err) };
    }
  })().then((reply) => parentPort?.postMessage(reply));
});

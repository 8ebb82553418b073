/**
 * A keep-alive client over raw sockets that sends its next request as soon as an answer has
 * arrived (on the next turn of its event loop, so a FIN that came with the answer is seen
 * first), and counts how its connections ended. What a graceful stop owes it: an answer to
 * every request it was sent, and nothing but a FIN on a connection it closes.
 */
import net from 'node:net';

export interface LoopReport {
  /** Requests written. */
  sent: number;
  /** Whole answers: a head, then the body its Content-Length announced. */
  answered: number;
  /** Answers that said `Connection: close`. */
  closing: number;
  /** Connections the server ended (FIN) with no request outstanding: the client went on with a new one. */
  retried: number;
  /** New connections refused: the server no longer listens, and the loop ends. */
  refused: number;
  /** Requests written that their connection closed on without a whole answer, with what had come of it. */
  readonly unanswered: string[];
  /** Socket errors (`ECONNRESET`, `EPIPE`, ...) and answers that cannot be read. */
  readonly errors: string[];
}

export interface RequestLoop {
  readonly report: LoopReport;
  /** Resolves once a new connection is refused or fails: the loop is over. */
  readonly done: Promise<void>;
}

/** Loops `request` on keep-alive connections to `baseUrl` until the server stops listening. */
export function startRequestLoop(baseUrl: string, request: string): RequestLoop {
  const url = new URL(baseUrl);
  const report: LoopReport = { sent: 0, answered: 0, closing: 0, retried: 0, refused: 0, unanswered: [], errors: [] };
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const connect = () => {
    const socket = net.connect(Number(url.port), url.hostname);
    let connected = false;
    let received = Buffer.alloc(0);
    let outstanding = false;
    let closingAnswer = false;
    let failed = false;
    const send = () => {
      outstanding = true;
      report.sent++;
      socket.write(request);
    };
    socket.once('connect', () => {
      connected = true;
      send();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = readAnswer(received);
      if (answer === undefined) return;
      if (typeof answer === 'string' || !outstanding) {
        report.errors.push(typeof answer === 'string' ? answer : 'an answer to no request');
        failed = true;
        socket.destroy();
        return;
      }
      received = received.subarray(answer.length);
      outstanding = false;
      report.answered++;
      if (answer.close) {
        report.closing++;
        closingAnswer = true;
        return;
      }
      setImmediate(() => {
        if (!socket.readableEnded && !socket.destroyed) send();
      });
    });
    socket.on('end', () => {
      if (outstanding) report.unanswered.push(received.toString('latin1'));
      else if (!closingAnswer) report.retried++;
      outstanding = false;
      socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      failed = true;
      if (!connected && err.code === 'ECONNREFUSED') report.refused++;
      else report.errors.push(err.code ?? err.message);
    });
    socket.on('close', () => {
      if (outstanding) report.unanswered.push(received.toString('latin1'));
      if (failed) finish();
      else connect();
    });
  };
  connect();
  return { report, done };
}

/**
 * The first answer in `bytes`: its length and whether it closes the connection; undefined while
 * incomplete; a string saying what is wrong with an answer this client cannot read.
 */
function readAnswer(bytes: Buffer): { length: number; close: boolean } | string | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const lines = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  if (!/^HTTP\/1\.1 \d{3} /.test(lines[0]!)) return `not a status line: ${JSON.stringify(lines[0])}`;
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  if (headers.has('transfer-encoding')) return 'a chunked answer';
  const length = headEnd + 4 + Number(headers.get('content-length') ?? 0);
  if (bytes.length < length) return undefined;
  return { length, close: headers.get('connection')?.toLowerCase() === 'close' };
}

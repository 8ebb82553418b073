/**
 * README and docs/ as a reader meets them: README short enough to be the entry, every link
 * landing on a file and a heading, every shell block either run by a test or said why not, and
 * the texts that copy the code's own lists (synopses, options, fields, folders, names) agreeing
 * with the code; and every section the code's comments cite existing under that heading.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { runJwtCli } from '../src/cli/jwt.js';
import { runPosterCli } from '../src/cli/poster.js';
import { readSettingNames } from '../src/config/setting-names.js';
import { formatAccessLine, type AccessRecord, type TextMasker } from '../src/log/access-format.js';
import { filesUnder, ROOT } from './helpers/checkout.js';
import {
  anchorsOf,
  blockUnder,
  citationsIn,
  citedPath,
  codeBlocksOf,
  DOC_PAGES,
  DOCUMENTS,
  headingsOf,
  linksIn,
  README,
  readDoc,
  RUN_BLOCKS,
  sectionOf,
  UNRUN_BLOCKS,
} from './helpers/docs.js';

/** README's budget: the entry, not the manual. */
const README_MAX_LINES = 300;

/** A document's links, by its path from the project root. */
const linksOf = (file: string) => linksIn(readDoc(file));

describe('README', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readDoc(README).split('\n').length - 1;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines`);
  });

  it('links every page of docs/', () => {
    const targets = new Set(linksOf(README).map((l) => l.target.split('#')[0]));
    for (const page of DOC_PAGES) assert.ok(targets.has(page), `README.md does not link ${page}`);
    assert.ok(targets.has('SECURITY.md'), 'README.md does not link SECURITY.md');
  });

  it('writes the command that starts the poster API out whole: POSTER_API=1 and the JWT setting, then npm start', () => {
    const { code } = blockUnder(README, 'Quick start: a poster from the API', 'sh');
    assert.match(code, /^POSTER_API=1 JWT_PUBLIC_KEY=\S+ npm start /m);
    assert.match(code, /^npm ci$/m, 'a fresh clone needs npm ci first');
    assert.match(code, /^kill \$! && wait$/m, 'the service is stopped at the end');
  });

  it('keeps the two commands: npm ci && npm start, npm ci && npm test', () => {
    const { code } = blockUnder(README, 'Run it', 'sh');
    assert.match(code, /^npm ci && npm start /m);
    assert.match(code, /^npm ci && npm test /m);
  });
});

describe('links in README, SECURITY.md and docs/', () => {
  for (const file of DOCUMENTS) {
    it(`land on a file, and on a heading of it, from ${file}`, () => {
      for (const { target, line } of linksOf(file)) {
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:: outside the project
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path === '' ? file : normalize(join(dirname(file), path)).split('\\').join('/');
        assert.ok(existsSync(join(ROOT, resolved)), `${file}:${line}: ${target}: no file ${resolved}`);
        if (anchor !== undefined) {
          assert.ok(resolved.endsWith('.md'), `${file}:${line}: ${target}: an anchor in a file that is not Markdown`);
          assert.ok(anchorsOf(resolved).has(anchor), `${file}:${line}: ${target}: ${resolved} has no heading #${anchor}`);
        }
      }
    });
  }

  it("are GitHub's: a heading's punctuation dropped, its spaces turned to hyphens", () => {
    assert.ok(anchorsOf('docs/operating.md').has('the-operators-listener'), "The operator's listener");
    assert.ok(anchorsOf(README).has('quick-start-a-poster-from-the-api'), 'Quick start: a poster from the API');
  });
});

describe('shell blocks of README and docs/', () => {
  const listed = [...RUN_BLOCKS, ...UNRUN_BLOCKS];

  it('are each run by a named test or said why not', () => {
    for (const file of [README, ...DOC_PAGES]) {
      for (const block of codeBlocksOf(file).filter((b) => b.lang === 'sh')) {
        const entries = listed.filter((e) => e.file === file && e.heading === block.heading);
        assert.equal(entries.length, 1, `${file}:${block.line}: a sh block under "${block.heading}" that RUN_BLOCKS or UNRUN_BLOCKS (test/helpers/docs.ts) must name once`);
      }
    }
  });

  it('named in the lists exist, one under each heading, and the tests that run them exist', () => {
    for (const entry of listed) blockUnder(entry.file, entry.heading, 'sh');
    for (const { test } of RUN_BLOCKS) assert.ok(existsSync(join(ROOT, test)), test);
  });

  it('run by a test are in the process tier', () => {
    const runner = readFileSync(join(ROOT, 'scripts/run-tests.mjs'), 'utf8');
    for (const { test } of RUN_BLOCKS) assert.ok(runner.includes(`'${test}'`), `${test} is not in PROCESS_TESTS`);
  });
});

describe('names in README and docs/', () => {
  it('are, when written like a setting, settings or one of the few other names listed here', () => {
    // Names written like settings (capitals with an underscore) that are not settings.
    const others = new Set([
      'O_APPEND', // a flag of open(2)
      'CAP_NET_BIND_SERVICE', // a Linux capability
      'REMOTE_ADDR', // a value of TRUSTED_PROXIES
      'NODE_COMPILE_CACHE', 'NODE_EXTRA_CA_CERTS', // Node's own environment variables
      'POSTER_WIDTH', 'POSTER_HEIGHT', 'RENDERER_VERSION', // constants of the library
      'PROBLEM_SERVICE_TLS_DIR', 'PROBLEM_SERVICE_GROUP', // the certbot hook's, for its test
      'SERVICE_TARGET', 'FUZZ_SEED', 'FUZZ_CASE', 'FUZZ_MODE', 'FUZZ_SECONDS', 'FUZZ_REQUESTS', 'FUZZ_PIPELINES', // the test tiers'
    ]);
    const settings = readSettingNames();
    for (const file of [README, ...DOC_PAGES]) {
      const text = readDoc(file);
      const inline = [...text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]*)[`=]/g)].map((m) => m[1]!);
      const assigned = codeBlocksOf(file).flatMap((b) => [...b.code.matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]*)=/g)].map((m) => m[1]!));
      for (const name of [...inline, ...assigned]) assert.ok(settings.has(name) || others.has(name), `${file} names ${name}, which is no setting`);
    }
  });
});

describe('docs/posters-and-api.md', () => {
  it("gives the jwt command's synopsis as jwt --help prints it", async () => {
    let usage = '';
    assert.equal(await runJwtCli(['--help'], (line) => (usage += line), () => {}), 0);
    const printed = usage.split('\n').slice(1).map((line) => line.trim());
    const documented = blockUnder('docs/posters-and-api.md', 'Keys and tokens', 'text').code.trim().split('\n').map((line) => line.split('#')[0]!.trim());
    assert.equal(documented.length, printed.length, `jwt --help prints ${printed.length} commands`);
    for (const [i, command] of documented.entries()) assert.ok(printed[i]!.startsWith(`${command} `), `jwt --help prints "${printed[i]}", not "${command}"`);
  });

  it('names the options of the poster command that poster --help prints, and no other', async () => {
    let usage = '';
    await runPosterCli(['--help'], (line) => (usage += line), () => {}, {});
    const printed = new Set([...usage.matchAll(/^ {2}(?:-h, )?(--[a-z-]+)/gm)].map((m) => m[1]!).filter((o) => o !== '--help'));
    const bullet = /- Command line: `(poster [^`]+)`/.exec(sectionOf('docs/posters-and-api.md', 'Posters').replace(/\n\s*/g, ' '))![1]!;
    assert.deepEqual(new Set(bullet.match(/--[a-z-]+/g)), printed);
  });
});

describe('docs/operating.md', () => {
  it('shows an access line with the keys the service writes, in its order, and a row for each', () => {
    const section = sectionOf('docs/operating.md', 'Access log');
    const example = Object.keys(JSON.parse(blockUnder('docs/operating.md', 'Access log', 'json').code));
    const rows = section.split('\n').filter((line) => line.startsWith('| `')).flatMap((row) => [...row.split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
    const record: AccessRecord = {
      time: 0, requestId: 'id', clientIp: '203.0.113.7', method: 'GET', routedMethod: 'GET', target: '/', protocol: 'HTTP/1.1', status: 404,
      bytes: 1, durationMs: 1, userAgent: undefined, referer: undefined, subject: undefined, worker: 0, completed: true,
    };
    const mask = Object.assign((text: string) => text, { trigger: undefined }) as TextMasker;
    const written = Object.keys(JSON.parse(formatAccessLine(record, () => 'time', mask)));
    assert.deepEqual(example, written);
    assert.deepEqual(rows, written);
  });
});

describe('docs/development.md', () => {
  it("names each folder of src/ in the layout, and no folder src/ lacks", () => {
    const layout = blockUnder('docs/development.md', 'Layout', '').code;
    const named = new Set([...layout.matchAll(/^ {2}(\w+)\/ /gm), ...layout.matchAll(/^ {2}cli\/ .*; (\w+)\/:/gm)].map((m) => m[1]!));
    const folders = new Set(readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
    assert.deepEqual([...named].sort(), [...folders].sort());
  });
});

describe('the pages of docs/', () => {
  it('each start with their title, their one top heading', () => {
    for (const file of DOC_PAGES) {
      const top = headingsOf(file).filter((h) => h.level === 1);
      assert.equal(top.length, 1, `${file} has ${top.length} top headings`);
      assert.equal(top[0]!.line, 1, `${file} does not start with its title`);
    }
  });
});

describe('citations of the documents in comments', () => {
  /** Where the code, its tests, its scripts and the deploy files cite a page's section. */
  const CITING_DIRS = ['src', 'test', 'scripts', 'bin', 'deploy'];

  it('read the forms in use: a page or README, then one heading or several', () => {
    const text = ["// (docs/http.md, \"Routing and errors\" and \"Limits\")", "/* README's \"Run it\" */", "# (docs/deployment.md,", '#   "Several processes")'].join('\n');
    assert.deepEqual(citationsIn(text), [
      { document: 'docs/http.md', headings: ['Routing and errors', 'Limits'], line: 1 },
      { document: 'README', headings: ['Run it'], line: 2 },
      { document: 'docs/deployment.md', headings: ['Several processes'], line: 3 },
    ]);
  });

  it(`land on a page and a heading of it, in ${CITING_DIRS.join('/, ')}/`, () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const dir of CITING_DIRS) {
      for (const name of filesUnder(join(ROOT, dir))) {
        const file = `${dir}/${name}`;
        for (const { document, headings, line } of citationsIn(readFileSync(join(ROOT, file), 'utf8'))) {
          const page = citedPath(document);
          checked++;
          if (!existsSync(join(ROOT, page))) {
            wrong.push(`${file}:${line}: cites ${document}, which is no file`);
            continue;
          }
          const texts = new Set(headingsOf(page).map((h) => h.text));
          for (const heading of headings) if (!texts.has(heading)) wrong.push(`${file}:${line}: cites ${document}, "${heading}": no such heading there`);
        }
      }
    }
    assert.ok(checked > 0, 'found no citation at all: the pattern no longer matches the form the code writes');
    assert.deepEqual(wrong, []);
  });
});

#!/usr/bin/env node
// `npm run sbom`: writes sbom.cdx.json, npm's own CycloneDX document of the runtime tree (from the
// lockfile), with two things npm does not know: the package's name (npm names the root after the
// checkout's folder) and the DejaVu fonts shipped in assets/fonts/ with their licence.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = 'sbom.cdx.json';
const FONTS_DIR = 'assets/fonts';
/** assets/fonts/LICENSE-DejaVu.txt: Bitstream Vera's licence (DejaVu's changes are public domain). */
const FONT_LICENCE = { license: { id: 'Bitstream-Vera' } };
const FONT_COPYRIGHT = 'Copyright (c) 2003 by Bitstream, Inc. All Rights Reserved. DejaVu changes are in public domain.';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bom = JSON.parse(
  execFileSync('npm', ['sbom', '--sbom-format', 'cyclonedx', '--omit', 'dev', '--package-lock-only'], { cwd: root, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }),
);
bom.metadata.component.name = manifest.name;

const fonts = readdirSync(join(root, FONTS_DIR))
  .filter((file) => file.endsWith('.ttf'))
  .sort()
  .map((file) => ({
    'bom-ref': `${FONTS_DIR}/${file}`,
    type: 'file',
    name: file,
    group: 'DejaVu fonts',
    scope: 'required',
    copyright: FONT_COPYRIGHT,
    hashes: [{ alg: 'SHA-256', content: createHash('sha256').update(readFileSync(join(root, FONTS_DIR, file))).digest('hex') }],
    licenses: [FONT_LICENCE],
    externalReferences: [{ type: 'website', url: 'https://dejavu-fonts.github.io/' }],
    properties: [{ name: 'path', value: `${FONTS_DIR}/${file}` }, { name: 'licence file', value: `${FONTS_DIR}/LICENSE-DejaVu.txt` }],
  }));
bom.components.push(...fonts);
const rootRef = bom.metadata.component['bom-ref'];
bom.dependencies.find((dependency) => dependency.ref === rootRef)?.dependsOn.push(...fonts.map((font) => font['bom-ref']));
bom.dependencies.push(...fonts.map((font) => ({ ref: font['bom-ref'], dependsOn: [] })));

writeFileSync(join(root, OUTPUT), `${JSON.stringify(bom, null, 2)}\n`);
console.log(`wrote ${OUTPUT}`);

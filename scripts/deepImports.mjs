// Keeps src/main/core's folders modules (docs/architecture.md, "Folders and their order"): moves the files listed in
// `moves`, then turns every import of another core folder's file into an import of that folder's index.ts, adding
// what it names to the index. Rerunnable: a second run changes nothing; after a merge it mends new deep imports.
//
//   node scripts/deepImports.mjs           rewrite, then print what is left that the rule forbids
//   node scripts/deepImports.mjs --check   change nothing; print the deep imports (exit 1 if any is not a lazy one)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const core = join(root, 'src/main/core');
const check = process.argv.includes('--check');

/**
 * Files moved to where their dependencies point down (paths under src/main/core). Mechanisms many folders share go to
 * platform/; what composes several nouns goes to the composition root; codeRunner serves the execute_code tool alone.
 */
const moves = [
  ['log.ts', 'platform/log.ts'],
  ['log.test.ts', 'platform/log.test.ts'],
  ['home.ts', 'platform/home.ts'],
  ['randomHex.ts', 'platform/randomHex.ts'],
  ['randomHex.test.ts', 'platform/randomHex.test.ts'],
  ['settleWithin.ts', 'platform/settleWithin.ts'],
  ['settleWithin.test.ts', 'platform/settleWithin.test.ts'],
  ['knownSecrets.ts', 'platform/knownSecrets.ts'],
  ['builtFile.ts', 'platform/builtFile.ts'],
  ['afterLargeRequest.ts', 'platform/afterLargeRequest.ts'],
  ['afterWork.test.ts', 'platform/afterWork.test.ts'],
  ['handlers.ts', 'platform/handlers.ts'],
  ['processes/endGently.ts', 'platform/endGently.ts'],
  ['processes/endGently.test.ts', 'platform/endGently.test.ts'],
  ['processes/endGentlyRemote.test.ts', 'platform/endGentlyRemote.test.ts'],
  ['processes/processAlive.ts', 'platform/processAlive.ts'],
  ['processes/processAlive.test.ts', 'platform/processAlive.test.ts'],
  ['registry/lock.ts', 'platform/lock.ts'],
  ['registry/lock.test.ts', 'platform/lock.test.ts'],
  ['config/didYouMean.ts', 'platform/didYouMean.ts'],
  ['config/didYouMean.test.ts', 'platform/didYouMean.test.ts'],
  ['mcp/jsonRpcMessage.ts', 'platform/jsonRpcMessage.ts'],
  ['mcp/jsonRpcMessage.test.ts', 'platform/jsonRpcMessage.test.ts'],
  ['backends/coreProviderContext.ts', 'coreProviderContext.ts'],
  ['registry/retireIdentities.ts', 'retireIdentities.ts'],
  ['registry/retireIdentities.test.ts', 'retireIdentities.test.ts'],
  ['dispatch/audit.ts', 'activity/audit.ts'],
  ['dispatch/audit.test.ts', 'activity/audit.test.ts'],
  ['dispatch/auditChain.ts', 'activity/auditChain.ts'],
  ['dispatch/auditChain.test.ts', 'activity/auditChain.test.ts'],
  ['dispatch/auditFullDisk.test.ts', 'activity/auditFullDisk.test.ts'],
  ['codeRunner/codeRunner.ts', 'tools/codeRunner/codeRunner.ts'],
  ['codeRunner/codeRunner.test.ts', 'tools/codeRunner/codeRunner.test.ts'],
  ['codeRunner/pythonBootstrap.ts', 'tools/codeRunner/pythonBootstrap.ts'],
].map(([from, to]) => [join(core, from), join(core, to)]);

const sourceDirs = ['src', 'bench', 'e2e', 'scripts', 'examples'].map((d) => join(root, d)).filter(existsSync);
const tsFiles = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'out') return [];
    return statSync(p).isDirectory() ? tsFiles(p) : /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [p] : [];
  });
const isTest = (f) => /\.test\.tsx?$/.test(f) || /\/test[A-Z][^/]*\.ts$/.test(f);
const noExt = (p) => p.replace(/\.(js|ts|tsx)$/, '');
const existing = (p) => [`${p}.ts`, `${p}.tsx`, join(p, 'index.ts')].find((c) => existsSync(c));
const asSpecifier = (from, target) => {
  const r = relative(dirname(from), noExt(target)) + '.js';
  return r.startsWith('.') ? r : `./${r}`;
};

/** Every relative module specifier in a file: [string literal node, 'static' | 'dynamic' | 'mock' | 'type']. */
function specifiers(src) {
  const found = [];
  const visit = (n) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier)
      found.push([n.moduleSpecifier, 'static', n]);
    else if (ts.isCallExpression(n) && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
      if (n.expression.kind === ts.SyntaxKind.ImportKeyword) found.push([n.arguments[0], 'dynamic', n]);
      else if (/^vi\.(mock|doMock|importActual)$/.test(n.expression.getText(src)))
        found.push([n.arguments[0], 'mock', n]);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) found.push([n.argument.literal, 'type', n]);
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found.filter(([lit]) => lit.text.startsWith('.'));
}
const parse = (file) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
/** Replaces [start, end, text] edits in a file's text, last first. */
function edit(file, edits) {
  if (!edits.length) return;
  let text = readFileSync(file, 'utf8');
  for (const [start, end, by] of edits.sort((a, b) => b[0] - a[0])) text = text.slice(0, start) + by + text.slice(end);
  writeFileSync(file, text);
}

// 1. Moves, and every specifier that pointed at a moved file (or, in a moved file, at anything) made to point again.
const movedTo = new Map(moves.map(([from, to]) => [noExt(from), to]));
const movedFrom = new Map(moves.map(([from, to]) => [to, from]));
if (!check) {
  for (const [from, to] of moves)
    if (existsSync(from) && !existsSync(to)) {
      mkdirSync(dirname(to), { recursive: true });
      execFileSync('git', ['mv', from, to], { cwd: root });
    }
  for (const file of sourceDirs.flatMap(tsFiles)) {
    const src = parse(file);
    const edits = [];
    for (const [lit] of specifiers(src)) {
      if (existing(resolve(dirname(file), noExt(lit.text)))) continue;
      let target = movedTo.get(resolve(dirname(file), noExt(lit.text)));
      const oldSelf = movedFrom.get(file);
      if (!target && oldSelf) {
        const was = resolve(dirname(oldSelf), noExt(lit.text));
        target = movedTo.get(was) ?? existing(was);
      }
      if (target) edits.push([lit.getStart() + 1, lit.getEnd() - 1, asSpecifier(file, target)]);
    }
    edit(file, edits);
  }
}

// 2. Deep imports made index imports. A folder is a directory of src/main/core; the root files compose them.
const folderOf = (file) => {
  const r = relative(core, file).split('/');
  return r.length > 1 && !r[0].startsWith('..') ? r[0] : undefined;
};
/**
 * Second faces: the files behind one are reached through it, never through index.ts, so that what needs only the light
 * face does not reach them (a bundle's lazy load takes in, and wraps, all it reaches). Folder → face → its files.
 */
const secondFaces = {
  backends: {
    // The built-in providers, which load ssh2, dockerode and node-pty.
    'providers.ts': [
      'builtins.ts',
      'local/localProvider.ts',
      'docker/dockerProvider.ts',
      'ssh/sshProvider.ts',
      'ssh/connectionPool.ts',
      'ssh/sshHosts.ts',
    ],
  },
};
const faceFiles = (folder) => [
  join(core, folder, 'index.ts'),
  ...Object.keys(secondFaces[folder] ?? {}).map((f) => join(core, folder, f)),
];
/** The face a folder's file is reached through. */
const faceOf = (folder, file) => {
  const [second] = Object.entries(secondFaces[folder] ?? {}).find(([, files]) =>
    files.some((f) => join(core, folder, f) === file),
  ) ?? [undefined];
  return join(core, folder, second ?? 'index.ts');
};
const mainFiles = tsFiles(join(root, 'src/main'));
/** Per face file, the names it must export: name → { file it is defined in (a hint), type-only wherever used }. */
const wanted = new Map();
const left = [];
for (const file of mainFiles) {
  const src = parse(file);
  const edits = [];
  for (const [lit, kind, node] of specifiers(src)) {
    const path = resolve(dirname(file), noExt(lit.text));
    const aFace = folderOf(`${path}.ts`) && faceFiles(folderOf(`${path}.ts`)).includes(`${path}.ts`);
    const target = existing(path) ?? (aFace ? `${path}.ts` : undefined);
    const folder = target && folderOf(target);
    if (!folder || folder === folderOf(file)) continue;
    if (faceFiles(folder).includes(target)) {
      // Already through the face: what it names must be there (found in the folder's files when it is not).
      const face = wanted.get(target) ?? new Map();
      wanted.set(target, face);
      for (const { name, type } of (kind === 'static' && namedImports(node)) || [])
        face.set(name, { file: face.get(name)?.file, type: (face.get(name)?.type ?? true) && type });
      continue;
    }
    // A test may reach another folder's test helpers (test*.ts), which no face exports: they would load with it.
    if (isTest(target)) continue;
    const where = `${relative(root, file)}: ${lit.text}`;
    const names = kind === 'static' && namedImports(node);
    if (!names) {
      left.push(
        `${where} (${kind === 'dynamic' ? 'a lazy import()' : kind === 'mock' ? 'vi.mock' : 'not named imports'})`,
      );
      continue;
    }
    if (check) {
      left.push(where);
      continue;
    }
    const faceFile = faceOf(folder, target);
    const face = wanted.get(faceFile) ?? new Map();
    wanted.set(faceFile, face);
    for (const { name, type } of names) {
      const had = face.get(name);
      face.set(name, { file: had?.file ?? target, type: (had?.type ?? true) && type });
    }
    edits.push([lit.getStart() + 1, lit.getEnd() - 1, asSpecifier(file, faceFile)]);
  }
  edit(file, edits);
  if (edits.length) mergeImports(file);
}

/** The names an import or export declaration takes, with whether each is a type only; undefined for `* as`, default. */
function namedImports(node) {
  if (ts.isExportDeclaration(node)) {
    if (!node.exportClause || !ts.isNamedExports(node.exportClause)) return undefined;
    return node.exportClause.elements.map((e) => ({
      name: (e.propertyName ?? e.name).text,
      type: node.isTypeOnly || e.isTypeOnly,
    }));
  }
  const clause = node.importClause;
  if (!clause || clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) return undefined;
  return clause.namedBindings.elements.map((e) => ({
    name: (e.propertyName ?? e.name).text,
    type: clause.isTypeOnly || e.isTypeOnly,
  }));
}

/** Two imports of one module in a file become one. */
function mergeImports(file) {
  const src = parse(file);
  const byModule = new Map();
  for (const s of src.statements) {
    if (!ts.isImportDeclaration(s) || !namedImports(s)) continue;
    const list = byModule.get(s.moduleSpecifier.text) ?? [];
    byModule.set(s.moduleSpecifier.text, [...list, s]);
  }
  const edits = [];
  for (const [spec, list] of byModule) {
    if (list.length < 2) continue;
    const parts = list.flatMap((s) => {
      const typeAll = s.importClause.isTypeOnly;
      return s.importClause.namedBindings.elements.map((e) => {
        const text = e.getText(src).replace(/^type\s+/, '');
        return { text, type: typeAll || e.isTypeOnly };
      });
    });
    const allTypes = parts.every((p) => p.type);
    const inner = parts.map((p) => (p.type && !allTypes ? `type ${p.text}` : p.text)).join(', ');
    edits.push([list[0].getStart(), list[0].getEnd(), `import ${allTypes ? 'type ' : ''}{ ${inner} } from '${spec}';`]);
    for (const s of list.slice(1)) {
      const end = src.text[s.getEnd()] === '\n' ? s.getEnd() + 1 : s.getEnd();
      edits.push([s.getFullStart() + (src.text[s.getFullStart()] === '\n' ? 1 : 0), end, '']);
    }
  }
  edit(file, edits);
}

// 3. The faces: each folder's index.ts exports what other folders import, each name from the file that defines it.
/** A file's exported names: name → whether only a type. */
function exportsOf(file) {
  const out = new Map();
  const put = (name, type) => out.set(name, (out.get(name) ?? true) && type);
  for (const s of parse(file).statements) {
    const exported = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause))
      for (const e of s.exportClause.elements) put(e.name.text, s.isTypeOnly || e.isTypeOnly);
    if (!exported) continue;
    if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) put(s.name.text, true);
    else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) put(d.name.text, false);
    } else if (s.name) put(s.name.text, false);
  }
  return out;
}
/** Whether a file's export of a name is a re-export of another file's (a face lists the file that defines it). */
function reexports(file, name) {
  return parse(file).statements.some(
    (s) =>
      ts.isExportDeclaration(s) &&
      s.moduleSpecifier &&
      s.exportClause &&
      ts.isNamedExports(s.exportClause) &&
      s.exportClause.elements.some((e) => e.name.text === name),
  );
}
if (!check) {
  const folders = readdirSync(core).filter((d) => statSync(join(core, d)).isDirectory());
  for (const [folder, index] of folders.flatMap((folder) => faceFiles(folder).map((face) => [folder, face]))) {
    const face = wanted.get(index) ?? new Map();
    let header = `// The face of core/${folder}: what other folders may import from it (docs/architecture.md).\n`;
    if (existsSync(index)) {
      const src = parse(index);
      header = src.text.slice(0, src.statements[0]?.getStart() ?? src.text.length);
      for (const s of src.statements)
        for (const n of (ts.isExportDeclaration(s) && namedImports(s)) || []) {
          const file = existing(resolve(dirname(index), noExt(s.moduleSpecifier.text)));
          // An entry whose file is behind another face of the folder moves there with its importers.
          if (!face.has(n.name) && faceOf(folder, file) === index) face.set(n.name, { file, type: n.type });
        }
    }
    if (!face.size) continue;
    const own = tsFiles(join(core, folder)).filter(
      (f) => !faceFiles(folder).includes(f) && !isTest(f) && faceOf(folder, f) === index,
    );
    const byFile = new Map();
    for (const [name, { file: hint }] of face) {
      const defines = (f) => f && own.includes(f) && exportsOf(f).has(name);
      const file = [hint, ...own].find((f) => defines(f) && !reexports(f, name)) ?? [hint, ...own].find(defines);
      if (!file)
        throw new Error(`core/${folder}: no file of it exports ${name}; say where it went in ${relative(core, index)}`);
      const list = byFile.get(file) ?? [];
      byFile.set(file, [...list, { name, type: exportsOf(file).get(name) }]);
    }
    const lines = [...byFile]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([file, names]) => {
        const sorted = names.sort((a, b) => a.name.localeCompare(b.name));
        const allTypes = sorted.every((n) => n.type);
        const inner = sorted.map((n) => (n.type && !allTypes ? `type ${n.name}` : n.name)).join(', ');
        return `export ${allTypes ? 'type ' : ''}{ ${inner} } from '${asSpecifier(index, file)}';`;
      });
    writeFileSync(index, header + lines.join('\n') + '\n');
  }
  execFileSync(join(root, 'node_modules/.bin/biome'), ['format', '--write', 'src/main'], {
    cwd: root,
    stdio: 'ignore',
  });
}
for (const l of left) console.log(l);
// A lazy import() may name a file behind a face; src/layering.test.ts lists those allowed, with why.
if (check && left.some((l) => !l.endsWith('(a lazy import())'))) process.exit(1);

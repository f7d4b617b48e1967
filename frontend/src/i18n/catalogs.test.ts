/**
 * The extraction check: every UI string is in both catalogs.
 *
 * 1. Each namespace has the same keys in English and Chinese (plural forms compared by their base
 *    key: en has `_one`/`_other`, zh-CN only `_other`), no empty message, and the same
 *    `{{placeholders}}` on both sides.
 * 2. No component renders a literal string: JSX text, string attributes a user reads (label, title,
 *    placeholder, …), `{'…'}` children and user-facing object properties (`label: '…'`) must come
 *    from t(). Brand and format names that read the same in every language are allowed below.
 * Keys used in code are checked by the compiler: they are typed from the English catalogs.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { en, NAMESPACES, zhCN } from './resources';

// Every source file's text, keyed "features/x/y.tsx" (relative to src/), read by Vite.
const SOURCES = Object.fromEntries(
  Object.entries(import.meta.glob('../**/*.{ts,tsx}', { query: '?raw', import: 'default', eager: true }) as Record<string, string>).map(
    ([path, text]) => [path.replace(/^\.\.\//, ''), text],
  ),
);

/** Files still being translated. Must end empty: the issue is done when every file is clean. */
const PENDING: string[] = [
];

/** Words that are the same in both languages (names, formats, units, code). */
const SAME_IN_EVERY_LANGUAGE = new Set([
  'Sampan',
  'S',
  'ONNX',
  'ONNX Runtime',
  'API',
  'SDK',
  'REST',
  'CSV',
  'JSON',
  'TSV',
  'XLSX',
  'ZIP',
  'OpenAPI',
  'Python',
  'curl',
  'JavaScript',
  'English',
  '简体中文',
  'ID',
  'URL',
  'GPU',
  'CPU',
  'AUC',
  'F1',
  'MAE',
  'RMSE',
  'R²',
  'p50',
  'p95',
  'p99',
  'ms',
  'px',
]);

/** Attributes whose string values a user reads. */
const READ_ATTRIBUTES = new Set([
  'label',
  'title',
  'placeholder',
  'description',
  'aria-label',
  'alt',
  'tooltip',
  'message',
  'error',
  'confirmLabel',
  'cancelLabel',
  'submitLabel',
  'emptyLabel',
  'what',
  'hint',
  'caption',
  'legend',
  'nothingFoundMessage',
  'heading',
  'subtitle',
  'reason',
]);
const READ_PROPERTIES = new Set(['label', 'title', 'description', 'placeholder', 'message', 'tooltip', 'hint', 'reason', 'help', 'caption', 'heading']);

function flatten(value: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      for (const [k, v] of flatten(child, prefix ? `${prefix}.${key}` : key)) out.set(k, v);
    }
  } else {
    out.set(prefix, String(value));
  }
  return out;
}

const PLURAL = /_(zero|one|two|few|many|other)$/;
const baseKeys = (keys: Iterable<string>) => new Set([...keys].map((key) => key.replace(PLURAL, '')));
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

describe('catalogs', () => {
  for (const ns of NAMESPACES) {
    it(`${ns}: the same keys, filled, in en and zh-CN`, () => {
      const english = flatten(en[ns]);
      const chinese = flatten(zhCN[ns]);
      const enBase = baseKeys(english.keys());
      const zhBase = baseKeys(chinese.keys());
      expect([...enBase].filter((key) => !zhBase.has(key)), `${ns}: keys missing from zh-CN`).toEqual([]);
      expect([...zhBase].filter((key) => !enBase.has(key)), `${ns}: keys only in zh-CN`).toEqual([]);
      const empty = [...english, ...chinese].filter(([, text]) => text.trim() === '').map(([key]) => key);
      expect(empty, `${ns}: empty messages`).toEqual([]);
      const mismatched: string[] = [];
      for (const [key, text] of english) {
        const zh = chinese.get(key) ?? chinese.get(key.replace(PLURAL, '_other'));
        if (zh === undefined) continue;
        const want = [...new Set(placeholders(text))].filter((name) => name !== 'count');
        const got = [...new Set(placeholders(zh))].filter((name) => name !== 'count');
        if (want.join() !== got.join()) mismatched.push(`${key}: en {${want}} zh-CN {${got}}`);
      }
      expect(mismatched, `${ns}: placeholders differ`).toEqual([]);
    });
  }
});

/** The components and modules a user's text can come from (not tests, fixtures, types or i18n/). */
function sourceFiles(): string[] {
  return Object.keys(SOURCES)
    .filter((path) => !/^(test|i18n)\//.test(path) && !/\.(test|d)\.tsx?$/.test(path) && !/Fixtures?\.ts$/.test(path))
    .sort();
}

const hasWords = (text: string) => /[A-Za-z\u4e00-\u9fff]{2,}/.test(text) && !SAME_IN_EVERY_LANGUAGE.has(text.trim());

/** Literal user-facing strings in one file, as "line: text". */
function literalStrings(path: string): string[] {
  const text = SOURCES[path] ?? '';
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, value: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    const before = text.split('\n')[line - 2] ?? '';
    if (before.includes('i18n-ignore') || (text.split('\n')[line - 1] ?? '').includes('i18n-ignore')) return;
    found.push(`${path}:${line}: ${value.trim().slice(0, 60)}`);
  };
  const stringOf = (node: ts.Node | undefined): string | null => {
    if (!node) return null;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
    return null;
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.text)) report(node, node.text);
    if (ts.isJsxAttribute(node)) {
      const name = node.name.getText(source);
      const init = node.initializer;
      const value = init && ts.isJsxExpression(init) ? stringOf(init.expression) : stringOf(init);
      if (READ_ATTRIBUTES.has(name) && value !== null && hasWords(value)) report(node, `${name}="${value}"`);
    }
    if (ts.isJsxExpression(node) && node.parent && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      const value = stringOf(node.expression);
      if (value !== null && hasWords(value)) report(node, value);
    }
    if (ts.isPropertyAssignment(node) && READ_PROPERTIES.has(node.name.getText(source).replace(/['"]/g, ''))) {
      const value = stringOf(node.initializer);
      if (value !== null && hasWords(value)) report(node, `${node.name.getText(source)}: ${value}`);
    }
    if (ts.isCallExpression(node) && /^(notifySuccess|notifyError|setMessage|setError|setInputError)$/.test(node.expression.getText(source))) {
      for (const arg of node.arguments) {
        const value = stringOf(arg);
        if (value !== null && hasWords(value)) report(arg, value);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('no literal UI strings', () => {
  const files = sourceFiles();
  it('scans the components', () => {
    expect(files.length).toBeGreaterThan(50);
  });
  it('every component takes its text from the catalogs', () => {
    const offending = files.filter((path) => !PENDING.includes(path)).flatMap(literalStrings);
    expect(offending).toEqual([]);
  });
  it('PENDING names only files that still have literal strings', () => {
    const clean = PENDING.filter((path) => literalStrings(path).length === 0);
    expect(clean, 'remove these from PENDING').toEqual([]);
  });
});

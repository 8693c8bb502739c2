/**
 * Every key path of the --json document as its declared TypeScript type says (JsonDocument in
 * packages/orchestrator/src/report/json-document.ts), each with its JSON type: what
 * docs/LOGS.md's field reference must list, read with the TypeScript compiler's type checker so
 * that a field declared anywhere along the way (a protocol report, a checker type) counts.
 *
 * Paths: `runs[].consumers[].recovery.syncs[].kind`; `[]` an array's elements, `*` any key of
 * a map by name (`runs[].relays.*.up`). An array or a map is a row of its own and so are its
 * elements' fields; its elements themselves are not (their type is in the array's, `object[]`).
 * Types: `string`, `number`, `boolean`, `object`, `T[]`, `[T, T]` for a tuple, joined by ` | `
 * with `null`, and `absent` for an optional field (left out of the JSON when unset).
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const JSON_DOCUMENT_SOURCE = `${root}packages/orchestrator/src/report/json-document.ts`;
/** The other --json document: a run against a real system (`--system NAME --json`). */
export const SYSTEM_DOCUMENT = {
  source: `${root}packages/orchestrator/src/systems-run/system-document.ts`,
  name: 'SystemRunDocument',
};

type Paths = Map<string, string>;

/** Types' members, null and undefined aside; `optional`: one of them was undefined. */
function parts(types: ts.Type[]): { members: ts.Type[]; nullable: boolean; optional: boolean } {
  const all = types.flatMap((type) => (type.isUnion() ? type.types : [type]));
  const is = (t: ts.Type, flag: ts.TypeFlags) => (t.flags & flag) !== 0;
  return {
    members: all.filter((t) => !is(t, ts.TypeFlags.Null) && !is(t, ts.TypeFlags.Undefined)),
    nullable: all.some((t) => is(t, ts.TypeFlags.Null)),
    optional: all.some((t) => is(t, ts.TypeFlags.Undefined)),
  };
}

class Walker {
  readonly paths: Paths = new Map();

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly opaque: Set<string>,
  ) {}

  /** The JSON type of a value of any of `types`, recording the paths below `path` on the way. */
  describe(types: ts.Type[], path: string): string {
    const { members, nullable } = parts(types);
    const names = [...new Set(this.kinds(members, path))];
    if (nullable) names.push('null');
    return names.join(' | ');
  }

  private kinds(members: ts.Type[], path: string): string[] {
    const flag = (t: ts.Type, f: ts.TypeFlags) => (t.flags & f) !== 0;
    const kinds: string[] = [];
    const objects: ts.Type[] = [];
    for (const t of members) {
      if (flag(t, ts.TypeFlags.StringLike)) kinds.push('string');
      else if (flag(t, ts.TypeFlags.NumberLike)) kinds.push('number');
      else if (flag(t, ts.TypeFlags.BooleanLike)) kinds.push('boolean');
      else if (this.checker.isTupleType(t)) kinds.push(this.tuple(t, path));
      else if (this.checker.isArrayType(t)) kinds.push(this.array(t, path));
      else if (flag(t, ts.TypeFlags.Object | ts.TypeFlags.Intersection)) objects.push(t);
      else throw new Error(`${path}: not a JSON type: ${this.checker.typeToString(t)}`);
    }
    if (objects.length > 0) {
      kinds.push('object');
      if (!this.opaque.has(path)) this.fields(objects, path);
    }
    return kinds;
  }

  private array(type: ts.Type, path: string): string {
    const [element] = this.checker.getTypeArguments(type as ts.TypeReference);
    const inner = this.describe([element!], `${path}[]`);
    return inner.includes(' | ') ? `(${inner})[]` : `${inner}[]`;
  }

  private tuple(type: ts.Type, path: string): string {
    const elements = this.checker.getTypeArguments(type as ts.TypeReference);
    return `[${elements.map((e, i) => this.describe([e], `${path}[${i}]`)).join(', ')}]`;
  }

  /**
   * The fields of an object type, or of a union of them (RunEvent: each variant's fields, a
   * field some variant lacks `absent`), or the values of a map by name (`*`).
   */
  private fields(objects: ts.Type[], path: string): void {
    const prefix = path === '' ? '' : `${path}.`;
    const mapped = objects.map((o) => o.getStringIndexType()).filter((t) => t !== undefined);
    if (mapped.length > 0) {
      this.paths.set(`${prefix}*`, this.describe(mapped, `${prefix}*`));
      return;
    }
    const byName = new Map<string, { types: ts.Type[]; optional: boolean }>();
    for (const o of objects) {
      for (const symbol of this.checker.getPropertiesOfType(o)) {
        const entry = byName.get(symbol.name) ?? { types: [], optional: false };
        entry.types.push(this.checker.getTypeOfSymbol(symbol));
        entry.optional ||= (symbol.flags & ts.SymbolFlags.Optional) !== 0;
        byName.set(symbol.name, entry);
      }
    }
    for (const [name, entry] of byName) {
      const inSome = objects.length > 1 && entry.types.length < objects.length;
      const described = this.describe(entry.types, `${prefix}${name}`);
      const absent = entry.optional || inSome || parts(entry.types).optional;
      this.paths.set(`${prefix}${name}`, absent ? `${described} | absent` : described);
    }
  }
}

/**
 * JsonDocument's key paths and their JSON types (or another document's, declared as an interface
 * `name` in `source`). `opaque`: paths whose fields another document lists (`config`:
 * docs/FLAGS.md), given as one row.
 */
export function jsonTypePaths(
  opaque: string[],
  document: { source: string; name: string } = { source: JSON_DOCUMENT_SOURCE, name: 'JsonDocument' },
): Paths {
  const tsconfig = `${root}packages/orchestrator/tsconfig.json`;
  const config = ts.getParsedCommandLineOfConfigFile(
    tsconfig,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram([document.source], { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(document.source)!;
  const declaration = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === document.name,
  );
  if (declaration === undefined) throw new Error(`no ${document.name} in ${document.source}`);
  const walker = new Walker(checker, new Set(opaque));
  walker.describe([checker.getTypeAtLocation(declaration.name)], '');
  return walker.paths;
}

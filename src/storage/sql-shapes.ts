import { parameter, renderSql, Sql, type Dialect, type RenderedSql, type SqlValue } from "./database";

/**
 * What a query built from fragments (`${sameMerchant(...)}`, `${lock}`, `${COLUMNS}`) renders to,
 * remembered by its shape, so a hot query is not rendered and hashed as text on every run.
 *
 * A query's text is fixed by its template literal's strings and, for each hole holding a
 * fragment, which hole it is and the fragment's own text: a template literal's strings array is
 * one object per call site (its identity is the key), a fragment without parameters (`sql.raw`)
 * is keyed by its text. Every other hole is a parameter. The shapes form a trie walked in render
 * order: a step for each fragment (its hole's index and its key) and one when the walk leaves it,
 * so two structures never share a path. A fragment whose strings are neither (`sql.join`'s) makes
 * the query unshaped: the caller renders it as before. At most `limit` nodes are kept (the shapes
 * come from the code's call sites and a few fixed texts, far fewer than that).
 */
export class SqlShapes<T> {
  private readonly roots = new WeakMap<readonly string[], ShapeNode<T>>();
  private nodes = 0;

  constructor(
    private readonly dialect: Dialect,
    /** What to keep for a shape, from its rendered text (a prepared statement, the text itself). */
    private readonly make: (text: string) => T,
    private readonly limit = 10_000,
  ) {}

  /** The shape's payload and the query's parameters, or undefined when the query has no shape. */
  lookup(query: Sql): { payload: T; params: SqlValue[] } | undefined {
    let root = this.roots.get(query.strings);
    if (!root) {
      if (!isTemplate(query.strings) || !this.grow()) return undefined;
      root = new ShapeNode<T>();
      this.roots.set(query.strings, root);
    }
    const params: SqlValue[] = [];
    const node = this.walk(query, root, params);
    if (!node) return undefined;
    node.payload ??= this.make(renderSql(query, this.dialect).text);
    return { payload: node.payload, params };
  }

  /** Follows the query's fragments from `node`, collecting its parameters; undefined: not shaped. */
  private walk(query: Sql, start: ShapeNode<T>, params: SqlValue[]): ShapeNode<T> | undefined {
    let node: ShapeNode<T> | undefined = start;
    const { values } = query;
    for (let index = 0; index < values.length; index++) {
      const value = values[index];
      if (!(value instanceof Sql)) {
        params.push(parameter(value));
        continue;
      }
      const key = fragmentKey(value);
      if (key === undefined) return undefined;
      node = this.step(node, index, key);
      if (!node) return undefined;
      if (value.values.length > 0) {
        node = this.walk(value, node, params);
        if (!node) return undefined;
        node = node.left ?? (this.grow() ? (node.left = new ShapeNode<T>()) : undefined);
        if (!node) return undefined;
      }
    }
    return node;
  }

  private step(node: ShapeNode<T>, hole: number, key: unknown): ShapeNode<T> | undefined {
    const holes = (node.holes ??= []);
    const byKey = (holes[hole] ??= new Map());
    let next = byKey.get(key);
    if (!next && this.grow()) byKey.set(key, (next = new ShapeNode<T>()));
    return next;
  }

  private grow(): boolean {
    if (this.nodes >= this.limit) return false;
    this.nodes++;
    return true;
  }
}

class ShapeNode<T> {
  payload: T | undefined;
  /** By hole index, the node after each fragment seen in that hole, by the fragment's key. */
  holes: Map<unknown, ShapeNode<T>>[] | undefined;
  /** The node after the walk leaves this fragment. */
  left: ShapeNode<T> | undefined;
}

/** A template literal's strings array (one per call site), not an array built at run time. */
function isTemplate(strings: readonly string[]): boolean {
  return Object.prototype.hasOwnProperty.call(strings, "raw");
}

/** A fragment's key: its text when it has no parameters, its template's strings, or undefined. */
function fragmentKey(fragment: Sql): unknown {
  if (fragment.values.length === 0) return fragment.strings[0];
  return isTemplate(fragment.strings) ? fragment.strings : undefined;
}

const TEXTS = {
  sqlite: new SqlShapes<string>("sqlite", (t) => t),
  postgres: new SqlShapes<string>("postgres", (t) => t),
};

/** renderSql's text and parameters, the text rendered once per shape of query (see SqlShapes). */
export function renderShaped(query: Sql, dialect: Dialect): RenderedSql {
  const shaped = TEXTS[dialect].lookup(query);
  return shaped ? { text: shaped.payload, values: shaped.params } : renderSql(query, dialect);
}

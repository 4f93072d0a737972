/** Deeper than any body the API takes; past it a body is refused before anything walks it recursively. */
export const MAX_JSON_DEPTH = 32;

export interface BodyProblem {
  message: string;
  /** The field at fault (dotted for nested objects; `metadata` for anything inside it); none for the body. */
  param?: string;
}

// A UTF-16 surrogate without its pair: Postgres text and jsonb refuse it, like NUL.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(text: string): boolean {
  return text.includes('\u0000') || LONE_SURROGATE.test(text);
}

function paramOf(path: readonly string[]): string | undefined {
  if (path.length === 0) return undefined;
  // Metadata keys are the merchant's own: a problem anywhere inside it is about `metadata`.
  if (path[0] === 'metadata') return 'metadata';
  return path.filter((segment) => !/^\d+$/.test(segment)).join('.');
}

function unstorableAt(path: readonly string[]): BodyProblem {
  const param = paramOf(path);
  return { message: `${param ?? 'The body'} must not contain NUL or unpaired surrogate characters.`, param };
}

/**
 * What makes a parsed JSON body unacceptable before any validation runs: nesting deeper than MAX_JSON_DEPTH
 * (canonical JSON and class-transformer recurse, and overflowed the stack: a 500), or a string, keys included,
 * with NUL or a lone surrogate (Postgres refuses them: a 500), or a number past double's range (the request's
 * canonical JSON cannot be written: a 500). Undefined when the body is fine.
 */
export function jsonBodyProblem(value: unknown): BodyProblem | undefined {
  const walk = (node: unknown, path: string[], depth: number): BodyProblem | undefined => {
    if (typeof node === 'string') return unstorable(node) ? unstorableAt(path) : undefined;
    // JSON.parse reads a number past double's range (1e400) as Infinity, which no JSON can hold again.
    if (typeof node === 'number' && !Number.isFinite(node)) return { message: `${paramOf(path) ?? 'The body'} holds a number too large to represent.`, param: paramOf(path) };
    if (node === null || typeof node !== 'object') return undefined;
    if (depth > MAX_JSON_DEPTH) return { message: `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, param: paramOf(path.slice(0, 1)) };
    const isArray = Array.isArray(node);
    const entries: Array<[string, unknown]> = isArray ? node.map((item, i) => [String(i), item]) : Object.entries(node);
    for (const [key, item] of entries) {
      // A bad key is about the object holding it (it cannot name itself).
      if (!isArray && unstorable(key)) return unstorableAt(path);
      const problem = walk(item, [...path, key], depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(value, [], 1);
}

// Where in a scenario something is: the path every problem and warning names.
export type JsonPath = (string | number)[];

export function formatPath(path: JsonPath): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');
}

// Whether two JSON values are the same as written: the same text, keys in the same order. A value
// whose keys were reordered counts as changed (for a write, sending it again is harmless).
export const sameJson = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);

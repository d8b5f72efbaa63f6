// A large answer whose JSON text is written directly, without first building its objects (a
// dashboard's range query answers hundreds of thousands of [time, "value"] pairs). The REST router
// sends `text` as it is; anything else serialising it (GraphQL's response) gets the value from
// toJSON, built only then.
export class WrittenJson {
  constructor(
    private readonly write: () => string,
    private readonly build: () => unknown,
  ) {}

  get text(): string {
    return this.write();
  }

  toJSON(): unknown {
    return this.build();
  }
}

/** JSON text of `value`: as written when it is a WrittenJson, else JSON.stringify's. */
export function jsonTextOf(value: unknown): string {
  return value instanceof WrittenJson ? value.text : JSON.stringify(value);
}

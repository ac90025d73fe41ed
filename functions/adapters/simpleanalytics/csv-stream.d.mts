export interface CsvSink {
  record(values: string[]): void;
  end(): void;
  fail(message: string): void;
}
export interface CsvStream {
  write(bytes: Uint8Array): void;
  end(): void;
}
export function createCsvStream(sink: CsvSink): CsvStream;

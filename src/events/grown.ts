// Flat columns (typed arrays) that grow. A small column grows by copying (cheap at that size); past a
// megabyte a column becomes a view on a resizable ArrayBuffer with room reserved as address space, not
// memory, so growing it never copies what it holds and never leaves the old copy for the collector: a
// doubling of a million-order store used to allocate and copy tens of megabytes at once, and the new
// external memory made V8 run a full mark-compact.
//
// Reservations cost no memory, but each is a mapping of the process and their number is bounded (a few
// tens of thousands), and tests make thousands of small exchanges: only columns that grow large get one.
type Column = Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;
type ColumnType<T extends Column> = { new (buffer: ArrayBuffer): T; readonly BYTES_PER_ELEMENT: number };

/** From this size a column grows in place. */
const IN_PLACE_FROM_BYTES = 2 ** 20;
/** Address space reserved at least (64 MiB: a million orders' numbers); four times the size past that. */
const RESERVED_BYTES = 2 ** 26;

// Resizable ArrayBuffers (ES2024), declared here so code type-checked against an older library (the
// dashboard's and the SDK's configurations include server types) still compiles.
interface Resizable {
  readonly byteLength: number;
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const ResizableBuffer = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ArrayBuffer;

/** An empty column of `type` with room for `length` elements. */
export function column<T extends Column>(type: ColumnType<T>, length = 0): T {
  return new type(new ArrayBuffer(length * type.BYTES_PER_ELEMENT));
}

/** `col` with room for `length` elements (the new ones zero): the same column when it grew in place. */
export function grown<T extends Column>(col: T, length: number): T {
  const bytes = length * col.BYTES_PER_ELEMENT;
  const buffer = col.buffer as unknown as Resizable;
  if (buffer.resizable && bytes <= buffer.maxByteLength) {
    if (bytes > buffer.byteLength) buffer.resize(bytes);
    return col;
  }
  const fresh = bytes < IN_PLACE_FROM_BYTES ? new ArrayBuffer(bytes) : new ResizableBuffer(bytes, { maxByteLength: Math.max(RESERVED_BYTES, bytes * 4) });
  const bigger = new (col.constructor as ColumnType<T>)(fresh);
  bigger.set(col);
  return bigger;
}

/**
 * The shared strings table, held as UTF-8 bytes in 1 MB blocks with three numbers per string, instead of one
 * JavaScript string each: 2,097,152 strings of 65 MB of XML took 160 MB of heap as strings (a string's header, and
 * saxes' slices keeping whole chunks alive), 82 MB this way. A cell's text is decoded when its row is read.
 */
const BLOCK_BYTES = 1024 * 1024;

export class StringTable {
  private blocks: Buffer[] = [];
  private used = BLOCK_BYTES;
  private blockOf = new Uint32Array(1024);
  private startOf = new Uint32Array(1024);
  private lengthOf = new Uint32Array(1024);
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(text: string): void {
    const size = Buffer.byteLength(text);
    if (this.used + size > BLOCK_BYTES) {
      // a string longer than a block gets a block of its own size
      this.blocks.push(Buffer.allocUnsafe(Math.max(BLOCK_BYTES, size)));
      this.used = 0;
    }
    if (this.count === this.blockOf.length) this.grow();
    const block = this.blocks.length - 1;
    this.blocks[block]!.write(text, this.used, 'utf8');
    this.blockOf[this.count] = block;
    this.startOf[this.count] = this.used;
    this.lengthOf[this.count] = size;
    this.count++;
    this.used += size;
  }

  /** The string at `index`, or undefined past the end. */
  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const start = this.startOf[index]!;
    return this.blocks[this.blockOf[index]!]!.toString('utf8', start, start + this.lengthOf[index]!);
  }

  private grow(): void {
    const larger = (old: Uint32Array) => {
      const next = new Uint32Array(old.length * 2);
      next.set(old);
      return next;
    };
    this.blockOf = larger(this.blockOf);
    this.startOf = larger(this.startOf);
    this.lengthOf = larger(this.lengthOf);
  }
}

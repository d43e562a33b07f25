import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** How a block's body is compressed (the `encoding` column of run_log_blocks). */
export type LogBlockEncoding = 'zstd' | 'gzip' | 'br';

/**
 * What compaction writes: zstd at level 9 (docs/run-history.md, "Compaction": of gzip, brotli and
 * zstd on the bench's Terraform output, the smallest blocks but brotli's slow default, decompressed
 * as fast as any, compressed far faster than compaction needs). Every encoding the column allows
 * stays readable, so changing this leaves old blocks as they are.
 */
export const LOG_BLOCK_ENCODING: LogBlockEncoding = 'zstd';
const ZSTD_LEVEL = 9;

/**
 * Lines per block at most: a page decompresses one or two blocks, not a whole log. The stream's
 * catch-up reads pages of 500 lines, so a replay from the start decompresses each block once.
 */
export const MAX_BLOCK_LINES = 500;
/** Text per block at most (a block holds at least one line, however long): long lines make shorter blocks. */
export const MAX_BLOCK_TEXT_BYTES = 256 * 1024;

// PostgreSQL text cannot hold NUL (and the chunk route refuses it): it separates the lines of a block.
const SEPARATOR = '\u0000';

/** A block as stored: lines `firstSeq`..`lastSeq` of a run, compressed as `encoding` says. */
export interface StoredLogBlock {
  firstSeq: number;
  lastSeq: number;
  encoding: LogBlockEncoding;
  body: Buffer;
}

const compressors: Record<LogBlockEncoding, (text: Buffer) => Promise<Buffer>> = {
  zstd: (text) =>
    promisify(zlib.zstdCompress)(text, { params: { [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } }),
  gzip: (text) => promisify(zlib.gzip)(text),
  br: (text) =>
    promisify(zlib.brotliCompress)(text, { params: { [zlib.constants.BROTLI_PARAM_SIZE_HINT]: text.length } }),
};

// One output chunk for a whole block of text (most are 20 to 60 KB): no concatenation of 16 KB pieces.
const DECOMPRESSED = { chunkSize: MAX_BLOCK_TEXT_BYTES };
const decompressors: Record<LogBlockEncoding, (body: Buffer) => Buffer> = {
  zstd: (body) => zlib.zstdDecompressSync(body, DECOMPRESSED),
  gzip: (body) => zlib.gunzipSync(body, DECOMPRESSED),
  br: (body) => zlib.brotliDecompressSync(body, DECOMPRESSED),
};

/**
 * The lines as one block's body. Compressed on libuv's thread pool, not on the event loop: the
 * process doing it goes on serving requests meanwhile.
 */
export function encodeLogBlock(lines: readonly string[], encoding = LOG_BLOCK_ENCODING): Promise<Buffer> {
  return compressors[encoding](Buffer.from(lines.join(SEPARATOR)));
}

/**
 * Lines `fromSeq`, `fromSeq + 1`, … of a stored block, at most `count` of them; throws when the block
 * does not hold exactly its range's lines. Decompressed on the event loop: a page needs one or two
 * blocks (a tenth of a millisecond each), less than a hop to the thread pool and back costs.
 */
export function linesOfBlock(
  block: StoredLogBlock,
  fromSeq = block.firstSeq,
  count = Number.POSITIVE_INFINITY,
): string[] {
  const lines = decompressors[block.encoding](block.body).toString('utf8').split(SEPARATOR);
  if (lines.length !== block.lastSeq - block.firstSeq + 1) {
    throw new Error(
      `log block ${block.firstSeq}..${block.lastSeq} holds ${lines.length} lines instead of ${block.lastSeq - block.firstSeq + 1}`,
    );
  }
  const skip = fromSeq - block.firstSeq;
  return skip === 0 && count >= lines.length ? lines : lines.slice(skip, skip + count);
}

/**
 * Splits consecutive lines into the ranges of blocks: at most MAX_BLOCK_LINES lines and, past the
 * first line, MAX_BLOCK_TEXT_BYTES of text each. Returns the number of lines of each block in order.
 */
export function blockSizes(lines: readonly string[]): number[] {
  const sizes: number[] = [];
  let count = 0;
  let bytes = 0;
  for (const line of lines) {
    const lineBytes = Buffer.byteLength(line) + 1;
    if (count > 0 && (count === MAX_BLOCK_LINES || bytes + lineBytes > MAX_BLOCK_TEXT_BYTES)) {
      sizes.push(count);
      count = 0;
      bytes = 0;
    }
    count++;
    bytes += lineBytes;
  }
  if (count > 0) sizes.push(count);
  return sizes;
}

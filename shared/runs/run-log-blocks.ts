import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { RunLogLine } from './run.ts';

/** How a block's body is compressed (the `encoding` column of run_log_blocks). */
export type LogBlockEncoding = 'zstd' | 'gzip' | 'br';

/**
 * What compaction writes: zstd at level 6 (docs/run-history.md, "Compaction": against gzip and
 * brotli on the bench's Terraform output, about gzip's size at twice its speed either way). Every
 * encoding the column allows stays readable, so changing this leaves old blocks as they are.
 */
export const LOG_BLOCK_ENCODING: LogBlockEncoding = 'zstd';
const ZSTD_LEVEL = 6;

/** Lines per block at most: a page of lines decompresses one or two blocks, not a whole log. */
export const MAX_BLOCK_LINES = 1_000;
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

const decompressors: Record<LogBlockEncoding, (body: Buffer) => Promise<Buffer>> = {
  zstd: promisify(zlib.zstdDecompress),
  gzip: promisify(zlib.gunzip),
  br: promisify(zlib.brotliDecompress),
};

/**
 * The lines as one block's body. Compressed on libuv's thread pool, not on the event loop: the
 * process doing it goes on serving requests meanwhile.
 */
export function encodeLogBlock(lines: readonly string[], encoding = LOG_BLOCK_ENCODING): Promise<Buffer> {
  return compressors[encoding](Buffer.from(lines.join(SEPARATOR)));
}

/** The numbered lines of a stored block; throws when it does not hold exactly its range's lines. */
export async function decodeLogBlock(block: StoredLogBlock): Promise<RunLogLine[]> {
  const text = (await decompressors[block.encoding](block.body)).toString('utf8');
  const lines = text.split(SEPARATOR);
  if (lines.length !== block.lastSeq - block.firstSeq + 1) {
    throw new Error(
      `log block ${block.firstSeq}..${block.lastSeq} holds ${lines.length} lines instead of ${block.lastSeq - block.firstSeq + 1}`,
    );
  }
  return lines.map((line, index) => ({ seq: block.firstSeq + index, line }));
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

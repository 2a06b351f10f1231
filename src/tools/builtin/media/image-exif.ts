/**
 * Whether an image file carries metadata (EXIF, XMP, text chunks) that must not travel to a
 * provider as it is: EXIF may rotate the picture and hold a camera's GPS position. Read from the
 * container's structure, without decoding pixels.
 */

/** JPEG: an APP1 (EXIF, XMP) or APP13 (IPTC) segment before the image data. */
function jpegHasMetadata(b: Buffer): boolean {
  let at = 2;
  while (at + 4 <= b.length && b[at] === 0xff) {
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return false; // start of scan, end of image
    if (marker === 0xe1 || marker === 0xed) return true;
    at += 2 + b.readUInt16BE(at + 2);
  }
  return false;
}

const PNG_METADATA = new Set(["eXIf", "tEXt", "iTXt", "zTXt"]);

/** PNG: an eXIf or text chunk before the first IDAT. */
function pngHasMetadata(b: Buffer): boolean {
  let at = 8;
  while (at + 8 <= b.length) {
    const type = b.toString("latin1", at + 4, at + 8);
    if (type === "IDAT" || type === "IEND") return false;
    if (PNG_METADATA.has(type)) return true;
    at += 12 + b.readUInt32BE(at);
  }
  return false;
}

/** WebP: the extended header's EXIF (0x08) or XMP (0x04) flag. */
function webpHasMetadata(b: Buffer): boolean {
  return b.length > 20 && b.toString("latin1", 12, 16) === "VP8X" && (b[20]! & 0x0c) !== 0;
}

export function hasExif(data: Buffer, mimeType: string): boolean {
  if (mimeType === "image/jpeg") return jpegHasMetadata(data);
  if (mimeType === "image/png") return pngHasMetadata(data);
  if (mimeType === "image/webp") return webpHasMetadata(data);
  return true;
}

// The sizes a HEIF/HEIC file's images are decoded at: each image's spatial extent property
// (`ispe`, ISO/IEC 23008-12) in meta > iprp > ipco. A decoder allocates the full extent and crops
// afterwards (`clap`), so this, not the cropped size image-size reports, bounds its memory; and a
// hostile `clap` can make that report any number, a negative one included.

// the boxes on the way to the extents, each inside the one before; `meta` is a full box, whose
// version and flags come before its children
const PATH = ['meta', 'iprp', 'ipco'];

export interface Extent {
  width: number;
  height: number;
}

/** Every `ispe` of the file, in file order; none for a file whose boxes do not parse. */
export function heifExtents(bytes: Uint8Array): Extent[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const extents: Extent[] = [];
  const walk = (start: number, end: number, depth: number): void => {
    for (let at = start; at + 8 <= end; ) {
      let size = view.getUint32(at);
      const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
      let header = 8;
      if (size === 1) {
        if (at + 16 > end) return;
        size = Number(view.getBigUint64(at + 8));
        header = 16;
      } else if (size === 0) {
        size = end - at;
      }
      if (size < header || at + size > end) return;
      if (depth < PATH.length && type === PATH[depth]) walk(at + header + (type === 'meta' ? 4 : 0), at + size, depth + 1);
      // version and flags, then width and height
      else if (depth === PATH.length && type === 'ispe' && size >= header + 12) extents.push({ width: view.getUint32(at + header + 4), height: view.getUint32(at + header + 8) });
      at += size;
    }
  };
  walk(0, bytes.length, 0);
  return extents;
}

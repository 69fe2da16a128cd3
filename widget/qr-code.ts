/**
 * @module QR symbols as SVG path data, from the `qrcode` package's encoder alone, so neither its
 * canvas renderer nor anything else of it reaches the bundle. Pure: the payer page's server-side
 * HTML draws the same symbol.
 */
// oxlint-disable-next-line triple-slash-reference -- an ambient module declaration for qrcode's untyped core, which an import cannot name
/// <reference path="./qrcode-core.d.ts" />
import { create } from 'qrcode/lib/core/qrcode.js';

/** Modules of light margin around the symbol, as the QR specification asks. */
export const QUIET_ZONE = 4;

/** A QR symbol ready to draw: `path` fills its dark modules inside a `size` × `size` view box. */
export interface QrSymbol {
  /** Width of the symbol in modules, quiet zone included. */
  size: number;
  /** Width of the symbol without the quiet zone (21 for version 1, +4 per version). */
  modules: number;
  /** SVG path data, one rectangle per horizontal run of dark modules. */
  path: string;
}

/** Encodes `text` at error correction level M and traces its dark modules. */
export function qrSymbol(text: string): QrSymbol {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const { size, data } = modules;
  let path = '';
  for (let row = 0; row < size; row++) {
    let column = 0;
    while (column < size) {
      if (!data[row * size + column]) {
        column++;
        continue;
      }
      const start = column;
      while (column < size && data[row * size + column]) column++;
      path += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${column - start}v1h${start - column}z`;
    }
  }
  return { size: size + 2 * QUIET_ZONE, modules: size, path };
}

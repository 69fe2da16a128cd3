/** The part of the `qrcode` package the widget uses: its encoder, without the canvas and string renderers. */
declare module 'qrcode/lib/core/qrcode.js' {
  /** The encoded symbol: `modules.data[row * size + column]` is 1 for a dark module. */
  export interface QrEncoding {
    modules: { size: number; data: Uint8Array };
    version: number;
  }
  /** Encodes text, choosing the densest mode for each segment (alphanumeric for upper-case runs). */
  export function create(text: string, options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' }): QrEncoding;
}

/**
 * The baseline JPEG encoder (byte-identical to libjpeg's cjpeg at the same settings), one stage
 * a file: colour conversion, DCT with quantisation, Huffman coding, the scan and its markers.
 */
export {
  encodeJpeg, JpegEncoder, type JpegBandedImage, type JpegImage, type JpegOptions, type Subsampling,
} from './encode.js';

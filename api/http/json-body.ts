/** Reading JSON request bodies: media type, size limit, raw bytes (for signatures), then parsing. */
import express, { type RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import { ApiError } from './api-error.ts';

/** Largest body a POST may carry. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** 415 unless the body is declared as UTF-8 JSON. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const [mediaType = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  const charset = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('charset='));
  if (mediaType.trim().toLowerCase() !== 'application/json' || (charset && !['charset=utf-8', 'charset="utf-8"'].includes(charset))) {
    next(new ApiError(415, 'unsupported-media-type', 'Send the body as UTF-8 JSON with the header Content-Type: application/json.'));
    return;
  }
  next();
};

// Compressed bodies are refused rather than inflated: the signature covers the bytes as sent.
const readUpToLimit = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES, inflate: false });

/**
 * Reads the body as raw bytes, up to the limit: 413 beyond it, and at once when the declared
 * Content-Length already says so (rather than after waiting for bytes that will be refused).
 */
export const readRawBody: RequestHandler = (req, res, next) => {
  if (Number(req.headers['content-length']) > BODY_LIMIT_BYTES) {
    next(new ApiError(413, 'payload-too-large', 'The request body is larger than 64 KiB.'));
    return;
  }
  readUpToLimit(req, res, next);
};

// A leading byte order mark is dropped, as a UTF-8 TextDecoder drops it.
const hasBom = (raw: Buffer) => raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;

/** Parses the raw bytes as JSON (400 invalid-json otherwise). */
export const parseJsonBody: RequestHandler = (req, _res, next) => {
  const raw: unknown = req.body;
  if (!Buffer.isBuffer(raw) || raw.length === 0) {
    next(new ApiError(400, 'invalid-json', 'The request body is empty; send a JSON object.'));
    return;
  }
  // Checked whole first (simdutf), then decoded: invalid bytes are refused, never replaced.
  if (!isUtf8(raw)) {
    next(new ApiError(400, 'invalid-json', 'The request body is not valid UTF-8.'));
    return;
  }
  const text = raw.toString('utf8', hasBom(raw) ? 3 : 0);
  try {
    req.body = JSON.parse(text);
  } catch (err) {
    next(new ApiError(400, 'invalid-json', `The request body is not valid JSON (${(err as Error).message}).`));
    return;
  }
  next();
};

/** The whole chain for unsigned JSON bodies. */
export const jsonBody: RequestHandler[] = [requireJsonContentType, readRawBody, parseJsonBody];

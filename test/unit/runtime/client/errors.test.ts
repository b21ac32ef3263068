import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerError,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
  parseRetryAfter,
  reasonForError,
  type Status,
} from '../../../../src/runtime/index.js';

function status(code: number, reason?: string, extra: Partial<Status> = {}): Status {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    ...(reason !== undefined ? { reason } : {}),
    ...extra,
  };
}

test('ApiError carries code, reason, details.causes and message from a Status body', () => {
  const body = JSON.stringify(
    status(422, 'Invalid', {
      message: 'DatabaseManager.coolops.cn "db" is invalid: spec.replicas: Invalid value: 11',
      details: {
        name: 'db',
        group: 'coolops.cn',
        kind: 'DatabaseManager',
        causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: 11' }],
      },
    }),
  );
  const e = ApiError.fromResponse(422, body, {
    request: { method: 'POST', path: '/apis/coolops.cn/v1alpha1/namespaces/default/databasemanagers' },
  });
  assert.ok(e instanceof Error);
  assert.equal(e.code, 422);
  assert.equal(e.reason, 'Invalid');
  assert.equal(e.details?.name, 'db');
  assert.deepEqual(
    e.causes.map((c) => c.field),
    ['spec.replicas'],
  );
  assert.match(e.message, /^POST \/apis\/coolops\.cn.*spec\.replicas.*\(422 Invalid\)$/);
  assert.equal(isInvalid(e), true);
  assert.equal(isConflict(e), false);
});

test('a non-Status body gets a reason derived from the code, as client-go does', () => {
  const e = ApiError.fromResponse(404, '404 page not found\n');
  assert.equal(e.reason, 'NotFound');
  assert.equal(e.code, 404);
  assert.match(e.message, /404 page not found/);
  assert.equal(isNotFound(e), true);
  const empty = ApiError.fromResponse(503, '');
  assert.equal(empty.reason, 'ServiceUnavailable');
  assert.equal(isServerError(empty), true);
  const long = ApiError.fromResponse(500, 'x'.repeat(2000));
  assert.ok(long.message.length < 700);
});

test('a Status missing code or reason is completed from the HTTP response', () => {
  const e = ApiError.fromResponse(
    409,
    JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, message: 'conflict' }),
  );
  assert.equal(e.code, 409);
  assert.equal(e.reason, 'Conflict');
  assert.equal(isConflict(e), true);
});

test('predicates match on reason, or on code when the reason is unknown', () => {
  const cases: Array<[(e: unknown) => boolean, number, string]> = [
    [isNotFound, 404, 'NotFound'],
    [isConflict, 409, 'Conflict'],
    [isInvalid, 422, 'Invalid'],
    [isGone, 410, 'Gone'],
    [isUnauthorized, 401, 'Unauthorized'],
    [isForbidden, 403, 'Forbidden'],
    [isTimeout, 504, 'Timeout'],
    [isBadRequest, 400, 'BadRequest'],
  ];
  for (const [pred, code, reason] of cases) {
    assert.equal(pred(new ApiError(status(code, reason))), true, `${pred.name} by reason`);
    assert.equal(pred(new ApiError(status(code, ''))), true, `${pred.name} by code`);
    assert.equal(pred(new ApiError(status(code, 'SomethingElse'))), false, `${pred.name} other reason`);
    assert.equal(pred(new ApiError(status(418, ''))), false, `${pred.name} other code`);
  }
  // AlreadyExists is reason-only (409 alone is a Conflict).
  assert.equal(isAlreadyExists(new ApiError(status(409, 'AlreadyExists'))), true);
  assert.equal(isAlreadyExists(new ApiError(status(409, ''))), false);
  assert.equal(isConflict(new ApiError(status(409, 'AlreadyExists'))), false);
  assert.equal(isTimeout(new ApiError(status(500, 'ServerTimeout'))), true);
});

test('isResourceExpired: code 410 with any reason, or reason Expired', () => {
  assert.equal(isResourceExpired(new ApiError(status(410, 'Expired'))), true);
  assert.equal(isResourceExpired(new ApiError(status(410, 'Gone'))), true);
  assert.equal(isResourceExpired(new ApiError(status(500, 'Expired'))), true);
  assert.equal(isResourceExpired(new ApiError(status(404, 'NotFound'))), false);
  // Works on the raw Status of a watch ERROR event too.
  assert.equal(isResourceExpired(status(410, 'Expired', { message: 'too old resource version: 1 (5)' })), true);
  assert.equal(isGone(status(410, '')), true);
});

test('isTooManyRequests and isServerError', () => {
  assert.equal(isTooManyRequests(new ApiError(status(429, ''))), true);
  assert.equal(isTooManyRequests(new ApiError(status(429, 'Other'))), true);
  assert.equal(isTooManyRequests(new ApiError(status(500, 'TooManyRequests'))), true);
  assert.equal(isTooManyRequests(new ApiError(status(503, 'ServiceUnavailable'))), false);
  assert.equal(isServerError(new ApiError(status(502, ''))), true);
  assert.equal(isServerError(new ApiError(status(499, ''))), false);
});

test('predicates accept anything and are false for non-API errors', () => {
  for (const v of [undefined, null, 0, 'NotFound', new Error('x'), { code: 404 }, { reason: 'NotFound' }]) {
    assert.equal(isNotFound(v), false);
    assert.equal(isServerError(v), false);
    assert.equal(isResourceExpired(v), false);
    assert.equal(reasonForError(v), '');
  }
});

test('retryAfterSeconds: the Retry-After header wins over details.retryAfterSeconds', () => {
  const body = JSON.stringify(status(429, 'TooManyRequests', { details: { retryAfterSeconds: 7 } }));
  assert.equal(ApiError.fromResponse(429, body).retryAfterSeconds, 7);
  assert.equal(ApiError.fromResponse(429, body, { retryAfterHeader: '3' }).retryAfterSeconds, 3);
  assert.equal(ApiError.fromResponse(429, '', { retryAfterHeader: 'soon' }).retryAfterSeconds, undefined);
  assert.equal(ApiError.fromResponse(500, '').retryAfterSeconds, undefined);
});

test('parseRetryAfter reads delta-seconds and HTTP-dates', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('0', now), 0);
  assert.equal(parseRetryAfter(' 12 ', now), 12);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 1);
  assert.equal(parseRetryAfter('-3', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
  assert.equal(parseRetryAfter('', now), undefined);
});

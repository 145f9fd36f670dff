/**
 * A parsed JSON answer as tests read it: by the shape the API documents, with the test's
 * assertions as the check of that shape. Deliberately untyped, in this one named place,
 * rather than `any` scattered through the tests (eslint.config.js says why the unsafe-*
 * rules are off under test/).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one untyped JSON type of the tests, see above
export type JsonBody = any;

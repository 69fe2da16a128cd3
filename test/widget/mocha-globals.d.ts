/** The mocha BDD globals @web/test-runner provides (the repository has no @types/mocha). */
type MochaBody = (this: { timeout(ms: number): void }) => void | Promise<void>;
declare function describe(title: string, body: () => void): void;
declare function it(title: string, body: MochaBody): void;
declare function before(body: MochaBody): void;
declare function after(body: MochaBody): void;
declare function beforeEach(body: MochaBody): void;
declare function afterEach(body: MochaBody): void;

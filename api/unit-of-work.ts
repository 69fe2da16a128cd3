/**
 * @module The unit of work: every store bound to one `Sql`, the database's or one transaction's.
 * Use cases ask for a transaction and get the stores inside it; they never hold a connection.
 */
import { LedgerStore } from './balance/ledger.store.ts';
import type { Database, Sql } from './db/database.ts';
import { IdempotencyStore } from './idempotency/idempotency.store.ts';
import { JobLeaseStore } from './jobs/job-lease.store.ts';
import { MerchantStore } from './merchants/merchant.store.ts';
import { MailStore } from './notifications/mail.store.ts';
import { AddressStore } from './networks/address.store.ts';
import { AssetStore } from './networks/asset.store.ts';
import { PaymentStore } from './payments/payment.store.ts';
import { RateLimitStore } from './rate-limits/rate-limit.store.ts';
import { RefundStore } from './refunds/refund.store.ts';
import { SimulatedChainStore } from './simulator/simulated-chain.store.ts';
import { FollowerStore } from './networks/follower.store.ts';
import { WalletStore } from './networks/wallet.store.ts';
import { WebhookStore } from './webhooks/webhook.store.ts';
import { WithdrawalStore } from './withdrawals/withdrawal.store.ts';
import { UserStore } from './users/user.store.ts';
import { SessionStore } from './dashboard/session.store.ts';

/** Every store, bound to one `Sql`; each is made on first use. */
abstract class StoreSet {
  #payments?: PaymentStore;
  #withdrawals?: WithdrawalStore;
  #ledger?: LedgerStore;
  #merchants?: MerchantStore;
  #addresses?: AddressStore;
  #assets?: AssetStore;
  #chains?: SimulatedChainStore;
  #leases?: JobLeaseStore;
  #idempotency?: IdempotencyStore;
  #rateLimits?: RateLimitStore;
  #webhooks?: WebhookStore;
  #followers?: FollowerStore;
  #wallet?: WalletStore;
  #refunds?: RefundStore;
  #mail?: MailStore;
  #users?: UserStore;
  #sessions?: SessionStore;

  constructor(readonly sql: Sql) {}

  get payments(): PaymentStore {
    return (this.#payments ??= new PaymentStore(this.sql));
  }
  get withdrawals(): WithdrawalStore {
    return (this.#withdrawals ??= new WithdrawalStore(this.sql));
  }
  get ledger(): LedgerStore {
    return (this.#ledger ??= new LedgerStore(this.sql));
  }
  get merchants(): MerchantStore {
    return (this.#merchants ??= new MerchantStore(this.sql));
  }
  get addresses(): AddressStore {
    return (this.#addresses ??= new AddressStore(this.sql));
  }
  get assets(): AssetStore {
    return (this.#assets ??= new AssetStore(this.sql));
  }
  get chains(): SimulatedChainStore {
    return (this.#chains ??= new SimulatedChainStore(this.sql));
  }
  get leases(): JobLeaseStore {
    return (this.#leases ??= new JobLeaseStore(this.sql));
  }
  get idempotency(): IdempotencyStore {
    return (this.#idempotency ??= new IdempotencyStore(this.sql));
  }
  get rateLimits(): RateLimitStore {
    return (this.#rateLimits ??= new RateLimitStore(this.sql));
  }
  get webhooks(): WebhookStore {
    return (this.#webhooks ??= new WebhookStore(this.sql));
  }
  get followers(): FollowerStore {
    return (this.#followers ??= new FollowerStore(this.sql));
  }
  get wallet(): WalletStore {
    return (this.#wallet ??= new WalletStore(this.sql));
  }
  get refunds(): RefundStore {
    return (this.#refunds ??= new RefundStore(this.sql));
  }
  get mail(): MailStore {
    return (this.#mail ??= new MailStore(this.sql));
  }
  get users(): UserStore {
    return (this.#users ??= new UserStore(this.sql));
  }
  get sessions(): SessionStore {
    return (this.#sessions ??= new SessionStore(this.sql));
  }
}

/**
 * The stores of one open transaction, handed to that transaction's work and to nothing else. Code
 * that runs inside a transaction takes these, never `DatabaseStores`: the two types do not mix.
 */
export class Stores extends StoreSet {
  /** Marks the binding, so that stores of the database itself are refused where these are asked for. */
  readonly boundTo = 'transaction' as const;
}

/**
 * Stores on the database itself, each statement on its own. Never to be reached from inside a
 * transaction's work: on SQLite that transaction holds the only connection, so such a statement
 * would wait for itself (the driver refuses it instead). Pass the transaction's `Stores` down.
 */
export class DatabaseStores extends StoreSet {
  /** Marks the binding, so that these are refused where a transaction's stores are asked for. */
  readonly boundTo = 'database' as const;
}

/** Either kind, for a read that is correct on its own or inside a transaction (it only reads through what it is given). */
export type AnyStores = Stores | DatabaseStores;

/** Stores outside any transaction, and transactions that hand out stores bound to them. */
export interface UnitOfWork {
  /** Stores on the database itself: each statement its own snapshot. Not for use inside a transaction. */
  readonly stores: DatabaseStores;
  /** Whether other processes may share the data (PostgreSQL). */
  readonly shared: boolean;
  /** Moves on whenever a row may have changed; undefined where nothing may be cached (`Database.changeGeneration`). */
  changeGeneration(): number | undefined;
  /** All of `work` or none of it, in one write transaction. */
  transaction<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /** Reads in one consistent snapshot. */
  snapshot<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
  /** A write transaction that may share its commit with others of the same moment (SQLite group commit). */
  grouped<T>(work: (stores: Stores) => Promise<T>): Promise<T>;
}

/** The unit of work over a database. */
export function createUnitOfWork(db: Database): UnitOfWork {
  return {
    stores: new DatabaseStores(db),
    shared: db.shared,
    changeGeneration: () => db.changeGeneration(),
    transaction: (work) => db.transaction((tx) => work(new Stores(tx))),
    snapshot: (work) => db.snapshot((tx) => work(new Stores(tx))),
    grouped: (work) => db.grouped((tx) => work(new Stores(tx))),
  };
}

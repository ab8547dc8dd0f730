import { LeaseLoop } from '../lease-loop.js';
import type { JobSettings } from '../../config/config.js';
import { nowMicros } from '../../domain/time.js';
import type { BackgroundJobRow, JobStore } from '../../store/job-types.js';
import type { BackgroundLog } from '../../domain/log.js';
import { errorText } from '../../domain/error-text.js';

/** What runs the jobs of one kind. */
export interface JobHandler {
  /** Does the work; `signal` aborts when the lease is lost or the node shuts down. Resumable: a re-run continues. */
  run(job: BackgroundJobRow, signal: AbortSignal): Promise<void>;
  /** The job failed for good (its handler threw, or its last lease expired): leave what it wrote in a final state. */
  failed?(job: BackgroundJobRow, reason: string): Promise<void>;
}

export type JobHandlers = Readonly<Record<string, JobHandler>>;

export { errorText };

/**
 * One job loop of a node (docs/architecture.md, "Background jobs"): leases a job of a kind it has
 * a handler for, heartbeats at a third of the lease while the handler runs, and ends the job with
 * the handler's outcome. A lost lease (another node's sweeper re-queued the job) aborts the handler
 * and writes nothing; a shutdown gives the job back to the queue.
 */
export class JobRunner extends LeaseLoop<BackgroundJobRow> {
  constructor(
    private readonly store: JobStore,
    private readonly handlers: JobHandlers,
    private readonly settings: JobSettings,
    private readonly log: BackgroundLog,
  ) {
    super('jobs');
  }

  protected shutdownReason(): Error {
    return new Error('The server is shutting down');
  }

  protected async lease(): Promise<BackgroundJobRow | null> {
    try {
      return await this.store.lease({
        owner: this.owner,
        now: nowMicros(),
        leaseMicros: Math.round(this.settings.leaseSeconds * 1e6),
        kinds: Object.keys(this.handlers),
      });
    } catch (error) {
      this.log.warn({ err: error }, 'background job lease failed');
      return null;
    }
  }

  protected async execute(job: BackgroundJobRow): Promise<void> {
    const handler = this.handlers[job.kind];
    if (handler === undefined) throw new Error(`no handler for job kind ${job.kind}`);
    const { project_id: projectId, id, fencing_token: token } = job;
    const lost = new AbortController();
    const onShutdown = (): void => lost.abort(this.shutdown.signal.reason);
    this.shutdown.signal.addEventListener('abort', onShutdown);
    const leaseMicros = Math.round(this.settings.leaseSeconds * 1e6);
    const beat = setInterval(
      () => {
        this.store
          .heartbeat(projectId, id, token, nowMicros(), leaseMicros)
          .then((held) => {
            if (!held) lost.abort(new Error('The job lease was lost'));
          })
          .catch((error: unknown) => this.log.warn({ err: error, job_id: id }, 'background job heartbeat failed'));
      },
      Math.max(10, (this.settings.leaseSeconds * 1000) / 3),
    );
    let failure: string | null = null;
    try {
      await handler.run(job, lost.signal);
    } catch (error) {
      failure = errorText(error);
    } finally {
      clearInterval(beat);
      this.shutdown.signal.removeEventListener('abort', onShutdown);
    }
    try {
      if (failure !== null && lost.signal.aborted) {
        if (this.shutdown.signal.aborted) await this.store.release(projectId, id, token);
        return;
      }
      const ended = await this.store.finish(projectId, id, token, failure, nowMicros());
      if (!ended.ok) return;
      if (failure === null) this.log.info({ job_id: id, kind: job.kind }, 'background job succeeded');
      else {
        this.log.warn({ job_id: id, kind: job.kind, reason: failure }, 'background job failed');
        await handler.failed?.(job, failure);
      }
    } catch (error) {
      this.log.warn({ err: error, job_id: id }, 'background job could not be ended');
    }
  }
}

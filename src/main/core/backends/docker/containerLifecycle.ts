// The lifecycle of the one container behind a Docker runtime identity: found, started, unpaused, created or
// recreated on demand (serialized), removed with its target; and what to tell the next call when that happened.
import type Docker from 'dockerode';
import type { Container, ContainerInspectInfo } from 'dockerode';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { DockerSpec } from './fields.js';
import {
  createLabels,
  managedContainerName,
  managedContainerOptions,
  managedLabels,
  type Guarded,
} from './containerConfig.js';
import { crashSweepDone, recordContainer, requestStop, UNSTOPPED } from './runContainers.js';
import { engineError, engineMessage, engineStatus, type DockerEndpoint } from './dockerEndpoint.js';
import { controlDeadlineMs, deadline, delay, killDeadlineMs } from './engineCalls.js';
import { inspectContainer, listLabelled } from './engineHttp.js';

const notices = {
  recreated: '[container was recreated]',
  started: '[container was stopped; started it again]',
  unpaused: '[container was paused; unpaused it]',
} as const;

/** What a stream's end is put down to when the engine itself stopped answering. */
export function engineGone(label: string): string {
  return `the docker engine at ${label} stopped answering`;
}

export class ContainerLifecycle {
  /** The container in use; undefined before the first call and after removal. */
  containerId: string | undefined;
  info: ContainerInspectInfo | undefined;
  private notice: string | undefined;
  private ensuring: Promise<unknown> = Promise.resolve();
  private reported: string | null | undefined = null;
  /** The container this run's record (runContainers) already names. */
  private recorded: string | undefined;

  constructor(
    /** dockerode, loaded on first use: finding and inspecting the container (a health probe) go over plain HTTP. */
    private readonly docker: () => Docker,
    private readonly endpoint: DockerEndpoint,
    private readonly spec: DockerSpec,
    /**
     * Whose container this is: target name and generation, and the profile's short hash (labels and name); what it
     * must never mount: the profile, under the person's home, and the engine's own socket.
     */
    private readonly target: {
      name: string;
      generation: string;
      profile: string;
      guarded: Guarded;
    },
    /**
     * This Core run's id, when the container must be stopped after a crash (docker_on_stop: stop): recorded per run.
     */
    private readonly run: string | undefined,
    /** Tells the Core the engine became unreachable (a message) or answers again (undefined). */
    private readonly reportReachability: (problem: string | undefined) => void,
    /** Each inspect of an attached container: its own settings say what holds work in it (containerConfinement). */
    private readonly attachedSeen: (info: ContainerInspectInfo) => void = () => undefined,
  ) {}

  /** The running container for this identity: found, started, created or recreated as needed. Serialized. */
  ensure(): Promise<Container> {
    const next = this.ensuring.then(
      () => this.ensureNow(),
      () => this.ensureNow(),
    );
    // The next ensure starts afresh; this caller gets the error from `next`.
    this.ensuring = next.catch(() => undefined);
    return next.then(
      (c) => {
        this.report(undefined);
        return c;
      },
      (err: unknown) => {
        const e = engineError(this.endpoint, err, 'prepare the container');
        if (e.code === 'target_unreachable') this.report(e.message);
        throw e;
      },
    );
  }

  private async ensureNow(): Promise<Container> {
    const info = this.spec.docker_container
      ? await this.ensureAttached(this.spec.docker_container)
      : await this.ensureManaged();
    this.containerId = info.Id;
    this.info = info;
    return this.docker().getContainer(info.Id);
  }

  private async ensureAttached(ref: string): Promise<ContainerInspectInfo> {
    const info = await this.inspect(ref);
    if (!info) {
      throw new SwitchboardError(
        'target_unreachable',
        `container "${ref}" does not exist on ${this.endpoint.label}`,
        'start that container, or point docker_container at one that exists',
      );
    }
    this.attachedSeen(info);
    await this.makeRunning(info);
    return info;
  }

  private async ensureManaged(): Promise<ContainerInspectInfo> {
    // A Core just started may still be stopping what a crashed run left: this container may be one of them.
    await crashSweepDone(this.target.guarded.profile);
    const known = this.containerId;
    let info = known ? await this.inspect(known) : undefined;
    info ??= await this.findManaged();
    if (info) {
      await this.makeRunning(info);
    } else {
      info = await this.createManaged();
    }
    // A different container than the one we used means state (files, exported vars) is gone: say so.
    if (known && info.Id !== known) this.notice = notices.recreated;
    // Before any work runs in it: a Core killed from here on leaves a record the next one stops it by.
    if (this.run && info.Id !== this.recorded) {
      recordContainer(this.target.guarded.profile, this.run, this.spec.docker_host, info.Id);
      this.recorded = info.Id;
    }
    return info;
  }

  private async makeRunning(info: ContainerInspectInfo): Promise<void> {
    const c = this.docker().getContainer(info.Id);
    if (info.State.Paused) {
      await deadline((abortSignal) => c.unpause({ abortSignal }), 'unpause a container');
      this.notice = notices.unpaused;
    } else if (!info.State.Running) {
      try {
        await deadline((abortSignal) => c.start({ abortSignal }), 'start a container');
      } catch (err) {
        // 304: someone else started it in the meantime.
        if (engineStatus(err) !== 304)
          throw engineError(this.endpoint, err, `start container ${info.Name.replace(/^\//, '')}`);
      }
      // A container that never ran ("created") is one being set up, by us or by an Environment racing us: no news.
      if (info.State.Status !== 'created') this.notice = notices.started;
    }
  }

  private labels(): Record<string, string> {
    return managedLabels(this.target.name, this.target.generation, this.target.profile);
  }

  async listManaged(ms = controlDeadlineMs): Promise<Docker.ContainerInfo[]> {
    const label = Object.entries(this.labels()).map(([k, v]) => `${k}=${v}`);
    return deadline((abortSignal) => listLabelled(this.endpoint, label, abortSignal), 'list containers', ms);
  }

  async findManaged(ms = controlDeadlineMs): Promise<ContainerInspectInfo | undefined> {
    const found = await this.listManaged(ms);
    found.sort((a, b) => Number(b.State === 'running') - Number(a.State === 'running'));
    for (const c of found) {
      const info = await this.inspect(c.Id, ms);
      if (info) return info;
    }
    return undefined;
  }

  private async createManaged(): Promise<ContainerInspectInfo> {
    const image = this.spec.docker_image ?? '';
    const name = managedContainerName(this.target.name, this.target.generation, this.target.profile);
    const labels = createLabels(this.labels(), this.target.guarded.profile, this.spec.docker_keep === true);
    const opts = managedContainerOptions(this.spec, labels, name, this.target.guarded);
    let container: Container;
    try {
      container = await deadline(
        (abortSignal) => this.docker().createContainer({ ...opts, abortSignal }),
        'create a container',
      );
    } catch (err) {
      const status = engineStatus(err);
      // Docker says a taken name with 409; Podman's compatible API says it in words ("… is already in use").
      const nameTaken = status === 409 || /name .* is already in use/.test(err instanceof Error ? err.message : '');
      if (nameTaken) {
        // Another Environment of this identity is creating it; the engine holds the name before the
        // container can be inspected, so wait for it a little.
        for (let i = 0; i < 100; i++) {
          const info = await this.inspect(name);
          if (info?.State.Running) return info;
          await delay(50);
        }
        const info = await this.inspect(name);
        if (!info) throw engineError(this.endpoint, err, `create container ${name}`);
        await this.makeRunning(info);
        return info;
      }
      if (status !== 404) throw engineError(this.endpoint, err, `create a container from ${image}`);
      await this.pull(image);
      try {
        container = await deadline(
          (abortSignal) => this.docker().createContainer({ ...opts, abortSignal }),
          'create a container',
        );
      } catch (err2) {
        throw engineError(this.endpoint, err2, `create a container from ${image}`);
      }
    }
    try {
      await deadline((abortSignal) => container.start({ abortSignal }), 'start a container');
    } catch (err) {
      if (engineStatus(err) !== 304) throw engineError(this.endpoint, err, `start container ${name}`);
    }
    const info = await this.inspect(container.id);
    if (!info) throw new SwitchboardError('internal', `container ${name} vanished right after it was created`);
    return info;
  }

  private async pull(image: string): Promise<void> {
    let problem: string | undefined;
    try {
      const stream = await this.docker().pull(image);
      await new Promise<void>((resolve, reject) => {
        this.docker().modem.followProgress(
          stream,
          (err: unknown) => (err ? reject(err) : resolve()),
          (event: { error?: unknown }) => {
            if (typeof event.error === 'string') problem = event.error;
          },
        );
      });
    } catch (err) {
      if (engineError(this.endpoint, err, 'pull').code === 'target_unreachable')
        throw engineError(this.endpoint, err, 'pull');
      problem = engineMessage(err);
    }
    if (problem !== undefined) {
      throw new SwitchboardError(
        'bad_config',
        `image "${image}" is not on ${this.endpoint.label} and could not be pulled: ${problem.split('\n')[0]}`,
        'check docker_image, or pull or load the image on that engine first',
      );
    }
  }

  /** Inspect by id or name; undefined when it does not exist. */
  async inspect(ref: string, ms = controlDeadlineMs): Promise<ContainerInspectInfo | undefined> {
    try {
      return await deadline(
        (abortSignal) => inspectContainer(this.endpoint, ref, abortSignal),
        'inspect a container',
        ms,
      );
    } catch (err) {
      if (engineStatus(err) === 404) return undefined;
      throw err;
    }
  }

  takeNotice(): string | undefined {
    const n = this.notice;
    this.notice = undefined;
    return n;
  }

  report(problem: string | undefined): void {
    if (this.reported === problem) return;
    this.reported = problem;
    this.reportReachability(problem);
  }

  /**
   * Why a stream ended, when it was the container's doing. A stream killed by a signal can end a moment before
   * the engine reports the container stopped, so for those (`settleMs`) the state is asked again for a while.
   */
  async containerGoneReason(settleMs = 0): Promise<string | undefined> {
    if (!this.containerId) return undefined;
    const until = Date.now() + settleMs;
    for (;;) {
      try {
        const info = await this.inspect(this.containerId, killDeadlineMs);
        if (!info) return 'the container was removed';
        if (!info.State.Running) return 'the container stopped';
      } catch {
        // the engine does not answer: that is the answer
        return engineGone(this.endpoint.label);
      }
      if (Date.now() >= until) return undefined;
      await delay(150);
    }
  }

  /**
   * Removes the managed container(s) of this identity unless docker_keep; an attached container is never removed.
   * An unreachable engine cannot be cleaned: the labels let a later run find what is left.
   */
  async removeManaged(): Promise<void> {
    if (this.spec.docker_container || this.spec.docker_keep) return;
    const ids = new Set<string>();
    if (this.containerId) ids.add(this.containerId);
    for (const c of await this.listManaged()) ids.add(c.Id);
    for (const id of ids) {
      await deadline(
        (abortSignal) => this.docker().getContainer(id).remove({ force: true, v: true, abortSignal }),
        'remove a container',
      ).catch((err: unknown) => {
        if (engineStatus(err) !== 404) throw err;
      });
    }
  }

  /**
   * Stops (never removes) the managed container this Environment used, when its Core stops: its files stay, and the
   * next use starts it again (with the "was stopped" notice). An attached container is the person's, left as it is.
   */
  async stopManaged(): Promise<void> {
    if (this.spec.docker_container || this.spec.docker_on_stop === 'keep-running' || !this.containerId) return;
    try {
      await requestStop(this.spec.docker_host, this.containerId);
    } catch {
      // The engine did not answer: this run ends cleanly all the same, so the next Core is told to stop it.
      recordContainer(this.target.guarded.profile, UNSTOPPED, this.spec.docker_host, this.containerId);
    }
  }

  forget(): void {
    this.containerId = undefined;
    this.info = undefined;
  }
}

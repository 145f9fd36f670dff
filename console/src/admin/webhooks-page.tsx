import { useId, useState } from "preact/hooks";
import type { Session } from "../session.js";
import { byName, errorMessage } from "../api.js";
import { useSubmit } from "../use-submit.js";
import { useAsync } from "../use-async.js";
import { Checkbox, TextInput } from "../ui/controls.js";
import { CopyButton } from "../ui/copy-button.js";
import { Failure, Loading, Status } from "../ui/notice.js";
import { PageHeading } from "../ui/page-heading.js";
import type { BlocAdmin } from "../../../src/client/admin.js";
import type { EventType, Webhook, WebhookDelivery } from "../../../src/client/events.js";

const WEBHOOK_EVENTS: readonly EventType[] = ["record.added", "record.updated", "record.deleted", "record.restored", "bloc.updated", "access.updated"];
type CreatedWebhook = Webhook & { readonly secret: string };

/** Webhooks: where events are sent, their recent deliveries, and resending one. */
export function AdminWebhooks({ session }: { session: Session }) {
  const api = session.client.admin;
  const [hooks, reload] = useAsync(() => api.listWebhooks(), [api]);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [message, setMessage] = useState("");
  const blocName = (id: string): string => session.me.blocs.find((b) => b.id === id)?.name ?? id;
  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      {hooks.state === "loading" ? <Loading what="webhooks" /> : hooks.state === "failed" ? <Failure error={hooks.error} /> : (
        <WebhookTable hooks={hooks.value} blocName={blocName} open={open} onOpen={setOpen} onDelete={async (hook) => {
          await api.removeWebhook(hook.id);
          if (open === hook.id) setOpen(null);
          if (created?.id === hook.id) setCreated(null);
          setMessage(`Webhook to ${hook.url} deleted.`);
          reload();
        }} />
      )}
      {open !== null ? <Deliveries key={open} api={api} id={open} blocName={blocName} /> : null}
      <CreateWebhook session={session} api={api} onCreated={(hook) => { setCreated(hook); reload(); }} />
      {created ? <WebhookSecret hook={created} onDone={() => setCreated(null)} /> : null}
      <Status>{message}</Status>
    </>
  );
}

function WebhookTable({ hooks, blocName, open, onOpen, onDelete }: {
  hooks: readonly Webhook[]; blocName: (id: string) => string; open: string | null; onOpen: (id: string | null) => void; onDelete: (hook: Webhook) => Promise<void>;
}) {
  const [failure, setFailure] = useState("");
  const [confirming, setConfirming] = useState<string | null>(null);
  if (hooks.length === 0) return <p class="hint">No webhook yet.</p>;
  return (
    <>
      <div class="table-scroll" role="region" aria-label="Webhooks table" tabIndex={0}>
        <table>
          <caption>{hooks.length} {hooks.length === 1 ? "webhook" : "webhooks"}</caption>
          <thead><tr><th scope="col">URL</th><th scope="col">Blocs</th><th scope="col">Events</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {hooks.map((hook) => (
              <tr key={hook.id}>
                <td><code class="volatile">{hook.url}</code></td>
                <td>{hook.blocs === null ? "every bloc" : hook.blocs.map(blocName).join(", ")}</td>
                <td>{hook.events.join(", ")}</td>
                <td class="nowrap volatile">{hook.createdAt}</td>
                <td class="actions">
                  <button type="button" aria-expanded={open === hook.id} onClick={() => onOpen(open === hook.id ? null : hook.id)}
                    aria-label={`Deliveries of the webhook to ${hook.url}`}>Deliveries</button>
                  {confirming === hook.id ? (
                    <>
                      <button type="button" class="danger" onClick={() => {
                        setFailure("");
                        onDelete(hook).then(() => setConfirming(null), (e: unknown) => setFailure(errorMessage(e)));
                      }}>Confirm: delete</button>
                      <button type="button" onClick={() => setConfirming(null)}>Keep it</button>
                    </>
                  ) : <button type="button" class="danger" aria-label={`Delete the webhook to ${hook.url}`} onClick={() => setConfirming(hook.id)}>Delete</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {failure ? <p class="alert" role="alert">{failure}</p> : null}
    </>
  );
}

function Deliveries({ api, id, blocName }: { api: BlocAdmin; id: string; blocName: (id: string) => string }) {
  const [deliveries, reload] = useAsync(() => api.webhookDeliveries(id), [api, id]);
  const [message, setMessage] = useState("");
  const resend = async (deliveryId: number): Promise<void> => {
    try {
      const delivery = await api.resendDelivery(id, deliveryId);
      setMessage(`Resent: ${delivery.outcome}${delivery.statusCode !== null ? ` (${delivery.statusCode})` : ""}.`);
      reload();
    } catch (error) {
      setMessage(`Not resent: ${errorMessage(error)}`);
    }
  };
  return (
    <section aria-labelledby="deliveries-heading" class="panel">
      <h2 id="deliveries-heading">Deliveries</h2>
      {deliveries.state === "loading" ? <Loading what="deliveries" /> : deliveries.state === "failed" ? <Failure error={deliveries.error} /> : (
        deliveries.value.length === 0 ? <p class="hint">None yet.</p> : (
          <div class="table-scroll" role="region" aria-label="Deliveries table" tabIndex={0}>
            <table>
              <caption>Latest deliveries</caption>
              <thead><tr><th scope="col">At</th><th scope="col">Event</th><th scope="col">Bloc</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">Time</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {deliveries.value.map((d: WebhookDelivery) => (
                  <tr key={d.id}>
                    <td class="nowrap volatile">{d.at}</td><td>{d.type} #{d.seq}</td><td>{blocName(d.blocId)}</td><td>{d.attempt}</td>
                    <td>{d.outcome}{d.error ? `: ${d.error}` : ""}</td><td>{d.statusCode ?? ""}</td>
                    <td class="volatile">{`${d.durationMs} ms`}</td>
                    <td><button type="button" onClick={() => void resend(d.id)} aria-label={`Resend delivery ${d.id}`}>Resend</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      )}
      <Status>{message}</Status>
    </section>
  );
}

function CreateWebhook({ session, api, onCreated }: { session: Session; api: BlocAdmin; onCreated: (hook: CreatedWebhook) => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<EventType[]>(["record.added"]);
  const [blocs, setBlocs] = useState<string[]>([]);
  const [secret, setSecret] = useState("");
  const { submit, busy, failure } = useSubmit(async () => {
    onCreated(await api.createWebhook({ url: url.trim(), events, ...(blocs.length > 0 ? { blocs } : {}), ...(secret ? { secret } : {}) }));
    setUrl(""); setSecret(""); setBlocs([]);
  });
  return (
    <section aria-labelledby="create-webhook-heading">
      <h2 id="create-webhook-heading">Create a webhook</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <TextInput label="URL" type="url" value={url} onValue={setUrl} hint="Where each event is POSTed." />
        <fieldset class="row checks">
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((e) => <Checkbox key={e} label={e} checked={events.includes(e)} onChecked={(on) => setEvents(on ? [...events, e] : events.filter((x) => x !== e))} />)}
        </fieldset>
        <fieldset class="row checks">
          <legend>Only these blocs (none ticked: every bloc)</legend>
          {byName(session.me.blocs).map((b) => <Checkbox key={b.id} label={b.name} checked={blocs.includes(b.id)} onChecked={(on) => setBlocs(on ? [...blocs, b.id] : blocs.filter((x) => x !== b.id))} />)}
        </fieldset>
        <TextInput label="Signing secret (optional)" type="password" value={secret} onValue={setSecret} autocomplete="off" hint="Generated when empty, and shown once." />
        <button type="submit" class="primary" disabled={busy}>Create webhook</button>
        {failure ? <p class="alert" role="alert">{failure}</p> : null}
      </form>
    </section>
  );
}

function WebhookSecret({ hook, onDone }: { hook: CreatedWebhook; onDone: () => void }) {
  const id = useId();
  return (
    <div class="secret panel" role="group" aria-labelledby={`${id}-label`}>
      <label for={id} id={`${id}-label`}>Signing secret of the webhook to {hook.url} — shown this once</label>
      <input id={id} class="secret-value" readOnly value={hook.secret} onFocus={(e) => e.currentTarget.select()} />
      <CopyButton text={hook.secret} target={id} label="Copy secret" />
      <button type="button" onClick={onDone}>I have copied it</button>
    </div>
  );
}

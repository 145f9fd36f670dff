import { useState } from "preact/hooks";
import type { Session } from "../session.js";
import { errorMessage } from "../api.js";
import { useAsync } from "../use-async.js";
import { Checkbox, Select, TextInput } from "../ui/controls.js";
import type { Bloc, BlocSettings, RestrictionMode } from "../../../src/client/types.js";
import { RESTRICTIONS } from "./labels.js";

type Period = "day" | "week" | "month";

/** A bloc's settings: who may use it by default, whether it takes data, its module and scan limit. */
export function BlocSettingsForm({ session, bloc, onSaved }: { session: Session; bloc: Bloc; onSaved: () => void }) {
  const [modules] = useAsync(() => session.client.admin.listModules(), []);
  const [open, setOpen] = useState(bloc.openToAllUsers);
  const [accepting, setAccepting] = useState(bloc.acceptingData);
  const [restriction, setRestriction] = useState<RestrictionMode>(bloc.restriction);
  const [moduleId, setModuleId] = useState(bloc.moduleId === null ? "" : String(bloc.moduleId));
  const [requireJob, setRequireJob] = useState(bloc.requireJob);
  const [limit, setLimit] = useState(bloc.scanLimit === null ? "" : String(bloc.scanLimit));
  const [period, setPeriod] = useState(bloc.scanLimitPeriod ?? "");
  const [failure, setFailure] = useState("");

  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    setFailure("");
    const scanLimit = limit.trim() === "" ? null : Number(limit);
    if (scanLimit !== null && !(Number.isInteger(scanLimit) && scanLimit >= 1)) { setFailure("The scan limit must be a whole number of at least 1."); return; }
    const settings: BlocSettings = {
      openToAllUsers: open, acceptingData: accepting, restriction, requireJob,
      moduleId: moduleId === "" ? null : moduleId,
      scanLimit, scanLimitPeriod: period === "" ? null : period as Period,
    };
    try {
      await session.client.admin.updateBloc(bloc.id, settings);
      onSaved();
    } catch (error) {
      setFailure(errorMessage(error));
    }
  };

  const moduleOptions = [{ value: "", label: "No module" },
    ...(modules.state === "done" ? modules.value.map((m) => ({ value: m.id, label: `${m.name} (ID ${m.id})` })) : [])];
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <form onSubmit={(e) => void save(e)} noValidate>
        <div class="row checks">
          <Checkbox label="Open to all users" checked={open} onChecked={setOpen} hint="Every user may read and add." />
          <Checkbox label="Accepting data" checked={accepting} onChecked={setAccepting} hint="Off: only admins may add." />
          <Checkbox label="Require a job ID" checked={requireJob} onChecked={setRequireJob} />
        </div>
        <div class="row">
          <Select label="Default restriction" value={restriction} onValue={(r) => setRestriction(r as RestrictionMode)} options={RESTRICTIONS} />
          <Select label="Module" value={moduleId} onValue={setModuleId} options={moduleOptions} />
          <TextInput label="Scan limit" inputMode="numeric" value={limit} onValue={setLimit} hint="Records per period; empty for none." />
          <Select label="Scan limit period" value={period} onValue={setPeriod}
            options={[{ value: "", label: "Ever" }, { value: "day", label: "A day" }, { value: "week", label: "A week (from Monday)" }, { value: "month", label: "A month" }]} />
        </div>
        <button type="submit" class="primary">Save settings</button>
        {failure ? <p class="alert" role="alert">{failure}</p> : null}
      </form>
    </section>
  );
}

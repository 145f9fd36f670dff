import { Select, TextInput } from "../ui/controls.js";
import type { BlocForm } from "../calls.js";

/** A job (module) ID is asked only where the bloc has a module or requires one. */
export function jobAsked(form: BlocForm): boolean {
  return form.modules.length > 0 || form.requireJob;
}

/**
 * add-data's jobID: the bloc's module, chosen from a list when it has one (the service
 * accepts no other), else typed when the bloc requires a job without naming its module.
 */
export function JobInput({ form, value, onValue }: { form: BlocForm; value: string; onValue: (value: string) => void }) {
  const label = `Job (module)${form.requireJob ? " (required)" : ""}`;
  if (form.modules.length === 0) {
    return <TextInput label={label} value={value} onValue={onValue} name="jobID" aria-required={form.requireJob ? true : undefined} autocomplete="off" />;
  }
  const options = form.modules.map((m) => ({ value: m.id, label: `${m.name} (ID ${m.id})` }));
  return (
    <Select label={label} value={value} onValue={onValue} name="jobID"
      options={form.requireJob && options.length === 1 ? options : [{ value: "", label: "(none)" }, ...options]} />
  );
}

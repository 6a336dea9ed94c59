// A label and its one-line text field, as the run panel's folded sections (launcher, A/B) lay them out
// in a two-column grid: paths and commands, so no spell check.
interface Props {
  id: string;
  label: string;
  testId: string;
  placeholder: string;
  value: string;
  onChange(value: string): void;
  disabled: boolean;
}

/** The keys of a section's fields that hold text. */
type TextKey<Fields> = { [K in keyof Fields]: Fields[K] extends string ? K : never }[keyof Fields] & string;

/**
 * Binds TextFields to a section's fields, one key each: its id (under the section's), its value, its
 * change and whether the section has the fields off. The label, test id and placeholder stay at the field.
 */
export function textFieldsOf<Fields>(idBase: string, fields: Fields, onChange: (change: Partial<Fields>) => void, disabled: boolean) {
  return <K extends TextKey<Fields>>(key: K) => ({
    id: `${idBase}-${key}`,
    value: fields[key] as string,
    onChange: (value: string) => onChange({ [key]: value } as Partial<Fields>),
    disabled,
  });
}

export function TextField({ id, label, testId, placeholder, value, onChange, disabled }: Props) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        type="text"
        spellCheck={false}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={disabled}
      />
    </>
  );
}

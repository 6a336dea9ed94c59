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

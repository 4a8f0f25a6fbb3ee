// The dashboard's shared look (docs/style.md "Dashboard"): import from "@/components/ui".
export { ActiveBadge, Badge, Card, CardList, Empty, Stat, type Tone } from "./card";
export {
  Field,
  FieldError,
  FormError,
  InputField,
  buttonClass,
  checkboxClass,
  dangerButtonClass,
  inputClass,
  inputLook,
  secondaryButtonClass,
  wholeNumberInput,
} from "./field";
export { formatDate, formatNumber } from "./format";
export { KeysetPager } from "./keyset-pager";
export { ShownOnce } from "./shown-once";
export { ResponsiveCard, Table, TableScroll, type Column } from "./table";
export { FilterForm, FilterInput, FilterSelect } from "./filter-form";

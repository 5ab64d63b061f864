/**
 * Runtime lists of the gateway's OpenAPI enums (for selects and labels). The
 * generated types have no runtime values, so a list is written once here and
 * checked against the generated type both ways: a value the API does not have
 * is a type error, and so is a value the API has that the list misses.
 */
export function enumValues<T extends string | number>() {
  return <const V extends readonly T[]>(...values: V & ([Exclude<T, V[number]>] extends [never] ? unknown : { missing: Exclude<T, V[number]> })): V => values;
}

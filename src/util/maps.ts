/** The value under `key`, made by `make` and stored the first time it is asked for. */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, make: () => NoInfer<V>): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

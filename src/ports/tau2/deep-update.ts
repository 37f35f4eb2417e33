type Obj = Record<string, any>;

/**
 * addict's recursive Dict.update, as τ²-bench's update_pydantic_model_with_dict uses it: nested dicts merge, anything
 * else (a list, a scalar) replaces. Mutates and returns `target`.
 */
export function deepUpdate(target: Obj, update: Obj): Obj {
  for (const [key, value] of Object.entries(update)) {
    if (value && typeof value === "object" && !Array.isArray(value) && target[key] && typeof target[key] === "object" && !Array.isArray(target[key])) deepUpdate(target[key], value);
    else target[key] = structuredClone(value);
  }
  return target;
}

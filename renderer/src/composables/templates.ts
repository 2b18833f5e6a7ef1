// Named snapshots of a form, kept in this browser's localStorage under one key.
import { ref } from 'vue';

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

export function useTemplates<T>(key: string) {
  const templates = ref<Record<string, T>>(JSON.parse(localStorage.getItem(key) ?? '{}'));
  const store = (next: Record<string, T>) => {
    templates.value = next;
    localStorage.setItem(key, JSON.stringify(next));
  };
  const save = (name: string, value: T) => store({ ...templates.value, [name]: clone(value) });
  const get = (name: string): T | undefined =>
    Object.hasOwn(templates.value, name) ? clone(templates.value[name] as T) : undefined;
  const remove = (name: string) => {
    const { [name]: _, ...rest } = templates.value;
    store(rest as Record<string, T>);
  };
  return { templates, save, get, remove };
}

// The experiment a screen shows, kept in the URL hash (#/<screen>/<id>) so a link or a reload opens it again.
import { ref, watch } from 'vue';

export function useRoutedRun(screen: string, routeId: () => string | undefined) {
  const picked = ref(routeId() ?? '');
  watch(routeId, (id) => id && (picked.value = id));
  watch(picked, (id) => id && id !== routeId() && (location.hash = `#/${screen}/${id}`));
  return picked;
}

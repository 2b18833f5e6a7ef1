// Light/dark theme: a data-theme attribute on <html> drives the CSS variables; charts read the same choice. Both
// follow the setting and, under `system`, the system's preference as it changes.
import { computed, ref, watchEffect } from 'vue';
import { DARK, LIGHT } from '../../shared/chart';
import type { Settings } from '../../shared/settings';

export const themeSetting = ref<Settings['theme']>('system');
const prefersDark = window.matchMedia('(prefers-color-scheme: dark)');
const systemDark = ref(prefersDark.matches);
prefersDark.addEventListener('change', (e) => (systemDark.value = e.matches));

export const isDark = computed(
  () => themeSetting.value === 'dark' || (themeSetting.value === 'system' && systemDark.value),
);
export const chartTheme = computed(() => (isDark.value ? DARK : LIGHT));
watchEffect(() => document.documentElement.setAttribute('data-theme', isDark.value ? 'dark' : 'light'));

import { piSettingsFromObject } from '../settings/piSettings';
import type { SettingsOverrides } from './sessionSettings';
import type { WriteRoute } from '../livePi/writeRoute';

/**
 * Through a running Pi, its own effective settings decide the numbers (Pi
 * compacts by them, and reads the project's settings only when it trusts
 * the project): they replace what the files say. Otherwise the options as given.
 */
export function withLiveSettings<T extends SettingsOverrides & { route?: WriteRoute }>(options: T): T {
  const route = options.route;
  if (route?.via !== 'pi' || !route.state.settings) return options;
  return { ...options, piSettings: piSettingsFromObject(route.state.settings, `the running Pi's settings (pid ${route.state.pid})`) };
}

// Notifications in the test VS Code: a headless window has no focus, so a toast may only be in the notification center.
import type { Locator, Page } from 'playwright-core';
import { runCommand } from '../support/vscode/browser';

/** A notification with this text: its toast, or (toasts hide) its row in the notification center. */
export async function notification(page: Page, text: string): Promise<Locator> {
  const toast = page.locator('.notification-toast', { hasText: text });
  try {
    await toast.waitFor({ timeout: 3_000 });
    return toast;
  } catch {
    // A headless window has no focus, and VS Code then keeps toasts in the notification center.
    if (!(await page.locator('.notifications-center.visible').count())) await runCommand(page, 'Notifications: Show Notifications');
    const item = page.locator('.notifications-center .monaco-list-row', { hasText: text });
    await item.waitFor({ timeout: 10_000 });
    return item;
  }
}

export async function closeNotifications(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  const clear = page.locator('.notifications-toasts .codicon-notifications-clear-all, .notification-toast .codicon-notifications-clear');
  if (await clear.count())
    await clear
      .first()
      .click()
      .catch(() => undefined);
}

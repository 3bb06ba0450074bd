import * as vscode from 'vscode';
import * as fs from 'node:fs';

/** The scheme of session files opened for reading: an editor on it cannot change or save the file. */
export const RAW_SCHEME = 'arbor-raw';

/** The read-only URI of a session file on disk. */
export function rawUri(file: string): vscode.Uri {
  return vscode.Uri.file(file).with({ scheme: RAW_SCHEME });
}

function readOnly(uri: vscode.Uri): never {
  throw vscode.FileSystemError.NoPermissions(`${uri.fsPath}: Arbor opens session files read-only (they are append-only)`);
}

/**
 * A read-only view of local files (registered with isReadonly), for Open Raw
 * Session File: the editor shows the JSONL and follows appends, and nothing
 * typed there can reach the session file.
 */
export class ReadOnlyFileSystem implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  watch(uri: vscode.Uri): vscode.Disposable {
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(uri.fsPath, { persistent: false }, () => this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]));
      watcher.on('error', () => watcher?.close());
    } catch {
      // a file that is gone: nothing to follow
    }
    return new vscode.Disposable(() => watcher?.close());
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    try {
      const st = await fs.promises.stat(uri.fsPath);
      return {
        type: st.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File,
        ctime: st.ctimeMs,
        mtime: st.mtimeMs,
        size: st.size,
        permissions: vscode.FilePermission.Readonly,
      };
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  async readFile(uri: vscode.Uri): Promise<Uint8Array> {
    try {
      return await fs.promises.readFile(uri.fsPath);
    } catch {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
  }

  readDirectory(uri: vscode.Uri): never {
    return readOnly(uri);
  }

  createDirectory(uri: vscode.Uri): never {
    return readOnly(uri);
  }

  writeFile(uri: vscode.Uri): never {
    return readOnly(uri);
  }

  delete(uri: vscode.Uri): never {
    return readOnly(uri);
  }

  rename(uri: vscode.Uri): never {
    return readOnly(uri);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

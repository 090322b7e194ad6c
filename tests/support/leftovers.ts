/**
 * What a participant's program can leave behind to break a harness's clean-up, as one Python program (run
 * on the host by a test, or by a participant as its answer): a chain of 250-character directory names deeper
 * than PATH_MAX, a FIFO and a Unix socket at its bottom, a directory of mode 000 with files in it, and a link
 * to a file outside (which a removal must not follow). `sabotage(dir)` returns its source for `dir`
 * (relative paths: the program's working directory).
 */

/** Depth of the chain: 24 × 251 characters, beyond PATH_MAX (4096). */
export const SABOTAGE_DEPTH = 24;

export function sabotageProgram(dir = ".", outside: string | null = null): string {
  return `
import os, socket
home = os.open(".", os.O_RDONLY)
root = ${JSON.stringify(dir)}
os.makedirs(root, exist_ok=True)
fd = os.open(root, os.O_RDONLY)
for i in range(${SABOTAGE_DEPTH}):
    name = "d" * 250
    os.mkdir(name, dir_fd=fd)
    nfd = os.open(name, os.O_RDONLY, dir_fd=fd)
    os.close(fd); fd = nfd
os.mkfifo("fifo", dir_fd=fd)
os.fchdir(fd)
s = socket.socket(socket.AF_UNIX); s.bind("sock"); s.close()
os.mkdir("locked"); open("locked/inside", "w").close(); os.chmod("locked", 0)
os.fchdir(home)
os.close(fd)
top = os.path.join(root, "locked-top")
os.mkdir(top); open(os.path.join(top, "f"), "w").close(); os.chmod(top, 0)
${outside === null ? "" : `os.symlink(${JSON.stringify(outside)}, os.path.join(root, "link-out"))`}
print("sabotaged")
`;
}

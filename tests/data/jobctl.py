"""A shell's job control in small, for the viewer's tests in tmux: runs its arguments as the
foreground job in a process group of its own, so that SIGTSTP stops it as under an interactive
shell (a group whose parent is outside its session is orphaned, and the kernel drops SIGTSTP
sent to it); writes the job's pid to $JOBCTL_PID; waits for the job to end, not merely stop;
takes the terminal back, prints "viewer exit N" (128 + the signal when killed by one) and keeps
the terminal open, reading it, until killed."""
import os
import signal
import sys


def main():
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.tcsetpgrp(0, os.getpid())
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        with open(os.environ["JOBCTL_PID"] + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(os.environ["JOBCTL_PID"] + ".tmp", os.environ["JOBCTL_PID"])
        os.execvp(sys.argv[1], sys.argv[1:])
    _, status = os.waitpid(pid, 0)
    os.tcsetpgrp(0, os.getpgrp())
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
    print("viewer exit %d" % code, flush=True)
    while os.read(0, 4096):
        pass


main()

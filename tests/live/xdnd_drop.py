# A tiny X client that drops a file onto a window with the XDND protocol (version 5), the way a file
# manager does: xdotool moves the mouse and presses keys but cannot be a drag source. Used by
# live_window_test.py; needs python3-xlib (Debian). Returns what the target said at each step.
import time
import urllib.parse

from Xlib import X, display as xdisplay
from Xlib.protocol import event


def drop_file(window_id, path, x, y, timeout=10.0, display_name=None):
    """Drops `path` at root coordinates (x, y) onto the window `window_id` (a top-level of the
    target, as xdotool reports it). Returns (accepted, finished, sent): whether XdndStatus accepted
    the drop, whether XdndFinished arrived, and whether the target asked for the data."""
    d = xdisplay.Display(display_name)
    atom = lambda name: d.intern_atom(name)  # noqa: E731
    root = d.screen().root
    source = root.create_window(-10, -10, 1, 1, 0, X.CopyFromParent, event_mask=X.PropertyChangeMask)
    target = d.create_resource_object("window", int(window_id))
    uri_list = atom("text/uri-list")
    selection = atom("XdndSelection")
    copy = atom("XdndActionCopy")
    source.set_selection_owner(selection, X.CurrentTime)
    d.sync()

    def send(kind, data):
        message = event.ClientMessage(window=target, client_type=atom(kind), data=(32, data))
        target.send_event(message, event_mask=0)
        d.flush()

    def wait_for(predicate):
        deadline = time.time() + timeout
        while time.time() < deadline:
            while d.pending_events():
                ev = d.next_event()
                result = predicate(ev)
                if result is not None:
                    return result
            time.sleep(0.01)
        return None

    payload = ("file://" + urllib.parse.quote(path) + "\r\n").encode()
    sent = [False]

    def answer_selection(ev):
        """The target asks for the data after XdndDrop: answer every SelectionRequest."""
        if ev.type != X.SelectionRequest or ev.selection != selection:
            return False
        requestor = ev.requestor
        prop = ev.property if ev.property != X.NONE else ev.target
        if ev.target == uri_list:
            requestor.change_property(prop, uri_list, 8, payload)
            sent[0] = True
        else:
            prop = X.NONE
        notify = event.SelectionNotify(time=ev.time, requestor=requestor, selection=ev.selection,
                                       target=ev.target, property=prop)
        requestor.send_event(notify, event_mask=0)
        d.flush()
        return True

    source_id = source.id
    send("XdndEnter", [source_id, 5 << 24, uri_list, 0, 0])
    send("XdndPosition", [source_id, 0, (x << 16) | y, X.CurrentTime, copy])

    def status(ev):
        if ev.type == X.ClientMessage and ev.client_type == atom("XdndStatus"):
            return bool(ev.data[1][1] & 1)
        return None

    accepted = wait_for(status)
    finished = None
    if accepted:
        send("XdndDrop", [source_id, 0, X.CurrentTime, 0, 0])

        def done(ev):
            if answer_selection(ev):
                return None
            if ev.type == X.ClientMessage and ev.client_type == atom("XdndFinished"):
                return True
            return None

        finished = wait_for(done)
    else:
        send("XdndLeave", [source_id, 0, 0, 0, 0])
    source.destroy()
    d.close()
    return bool(accepted), bool(finished), sent[0]


if __name__ == "__main__":
    import sys
    print(drop_file(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))

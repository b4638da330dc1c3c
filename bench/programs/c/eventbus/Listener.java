package eventbus;

interface Listener {
    void onEvent(Event e);
}

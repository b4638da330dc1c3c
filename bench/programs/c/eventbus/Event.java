package eventbus;

/** Immutable event published on a topic. */
final class Event {
    final String topic;
    final String source;
    final long payload;

    Event(String topic, String source, long payload) {
        this.topic = topic;
        this.source = source;
        this.payload = payload;
    }
}

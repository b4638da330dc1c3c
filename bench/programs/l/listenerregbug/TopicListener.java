package listenerregbug;

/** Receives events published to a topic of a {@link SubscriptionRegistry}. */
public interface TopicListener<E> {

    void onEvent(String topic, E event);

    /**
     * Called once when the registry is closed while this listener is still
     * subscribed; never called for subscriptions the caller closed itself.
     */
    default void onRegistryClosed() {
    }
}

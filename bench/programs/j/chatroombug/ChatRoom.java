package chatroombug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** What the room header shows: the member list and the displayed head count. */
final class RoomSnapshot {
    final List<String> members;
    final int memberCount;

    RoomSnapshot(List<String> members, int memberCount) {
        this.members = members;
        this.memberCount = memberCount;
    }

    boolean consistent() {
        return members.size() == memberCount;
    }
}

/**
 * A chat room's membership list with a denormalised member count for the header, guarded by
 * a read-write lock.
 */
class ChatRoom {
    private final String name;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final List<String> members = new ArrayList<>();
    private int memberCount;

    ChatRoom(String name) {
        this.name = name;
    }

    /** Adds a user unless already present; returns whether the user joined. */
    boolean join(String user) {
        int count;
        lock.readLock().lock();
        try {
            if (members.contains(user)) {
                return false;
            }
            count = memberCount; // BUG: count (and absence of the user) read under the read lock ...
        } finally {
            lock.readLock().unlock();
        }
        lock.writeLock().lock();
        try {
            members.add(user);
            memberCount = count + 1; // BUG: ... written back under the write lock from the stale read
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Removes a user if present; returns whether the user left. */
    boolean leave(String user) {
        lock.writeLock().lock();
        try {
            if (!members.remove(user)) {
                return false;
            }
            memberCount = memberCount - 1;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A consistent copy of the member list and count, for rendering the room header. */
    RoomSnapshot snapshot() {
        lock.readLock().lock();
        try {
            return new RoomSnapshot(List.copyOf(members), memberCount);
        } finally {
            lock.readLock().unlock();
        }
    }

    String name() {
        return name;
    }
}

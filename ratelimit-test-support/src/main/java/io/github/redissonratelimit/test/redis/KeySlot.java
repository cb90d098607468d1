package io.github.redissonratelimit.test.redis;

import java.nio.charset.StandardCharsets;

/** The Redis Cluster hash slot of a key (CRC16/XMODEM mod 16384, honouring {hash tags}). */
public final class KeySlot {

    private KeySlot() {
    }

    public static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = indexOf(bytes, (byte) '{', 0);
        if (start >= 0) {
            int end = indexOf(bytes, (byte) '}', start + 1);
            if (end > start + 1) {
                return crc16(bytes, start + 1, end) % 16384;
            }
        }
        return crc16(bytes, 0, bytes.length) % 16384;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }

    private static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }
}

// SPDX-License-Identifier: Apache-2.0
package io.numaspread.agent;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * The agent's library as a package installs it for the jar: for a jar in {@code PREFIX/share/numaspread/}, the
 * file {@code PREFIX/lib/numaspread/linux-ARCH/libnumaspread-agent.so} (the Debian package and the container
 * image: {@code /usr/share/numaspread/numaspread-agent.jar} and {@code /usr/lib/numaspread/linux-x86_64/...}).
 * Loading it in place saves every start the extraction of the jar's copy (reading it out of the jar, a private
 * directory, a write and a delete).
 *
 * <p>It is used only when it is as trustworthy as the jar and is the jar's own build:
 *
 * <ul>
 *   <li>every directory from the root down and the file itself is owned by root or by the jar's owner and is
 *       writable by neither group nor others, and none of them is a symbolic link (each is examined without
 *       following links), so that nobody but those who could change the jar can change what the path names
 *       between this check and the load;
 *   <li>the file has the size and the CRC-32 that the jar's central directory records for its copy. The ownership above
 *       is what keeps others out; the checksum catches a file of another build or a damaged one, which CRC-32 does as
 *       well as a cryptographic hash would (only the owners above could plant a colliding file, and they could replace
 *       the jar too), it reads no more than the load maps anyway, and it needs neither the JDK's security providers
 *       (milliseconds on a cold JVM) nor a second copy of the library's bytes from the jar.
 * </ul>
 *
 * @param path where the installed file is, or would be; null when the jar is not in a {@code share/numaspread}
 *     directory, and for {@link #AGENTPATH}
 * @param present whether a file (or a link) is at that path
 * @param problem why it is not used, or null when it can be loaded
 */
record InstalledLibrary(Path path, boolean present, String problem) {
    /** The library the JVM loaded for {@code -agentpath}: the user named it, so it is used as it is. */
    static final InstalledLibrary AGENTPATH = new InstalledLibrary(null, true, null);

    private static final int TYPE = 0170000;
    private static final int DIRECTORY = 0040000;
    private static final int REGULAR = 0100000;
    private static final int LINK = 0120000;
    private static final int GROUP_OR_OTHERS_WRITE = 0022;
    private static final int STICKY = 01000;

    /**
     * The installed library for the agent jar {@code jar} on {@code platform} (linux-ARCH), checked against the
     * jar's {@code entry} for it.
     */
    static InstalledLibrary beside(Path jar, String platform, ZipEntry entry) {
        Path realJar;
        try {
            realJar = jar.toRealPath();
        } catch (IOException e) {
            return new InstalledLibrary(null, false, "cannot read the jar's own path " + jar + ": " + e);
        }
        Path directory = realJar.getParent();
        Path share = directory == null ? null : directory.getParent();
        Path prefix = share == null ? null : share.getParent();
        if (prefix == null
                || !directory.getFileName().toString().equals("numaspread")
                || !share.getFileName().toString().equals("share")) {
            return new InstalledLibrary(
                    null, false, "the jar " + realJar + " is not in a PREFIX/share/numaspread directory");
        }
        Path library = prefix.resolve("lib/numaspread").resolve(platform).resolve(NativeAgent.LIBRARY);
        try {
            // The owner is read only here: a bare jar, which extracts, never loads the file attribute views (five
            // classes from the runtime image, about 0.7 ms on a cold JVM).
            String problem = untrusted(library, jarOwner(realJar));
            if (problem == null) {
                problem = differs(library, entry);
            }
            return new InstalledLibrary(library, true, problem);
        } catch (NoSuchFileException e) {
            return new InstalledLibrary(library, false, "no installed library at " + library);
        } catch (IOException e) {
            return new InstalledLibrary(library, true, "cannot read it: " + e);
        }
    }

    /** The same file, refused after all, for {@code reason}. */
    InstalledLibrary refused(String reason) {
        return new InstalledLibrary(path, present, reason);
    }

    /** Why the installed file is not used, as one clause naming it. */
    String describeProblem() {
        return present ? "refused the installed library " + path + ": " + problem : problem;
    }

    /** Whether a file was there and refused: said always, not only with verbose=true. */
    boolean refusedFile() {
        return present && problem != null;
    }

    /** Which copy {@link NativeAgent#load()} loaded, as one line for stderr. */
    String describeLoad() {
        if (this == AGENTPATH) {
            return "uses the library that -agentpath loaded";
        }
        return problem == null
                ? "loaded the installed library " + path
                : "extracted the library from the jar: " + describeProblem();
    }

    /**
     * Why {@code library} or a directory on its way is not trusted, or null: each is examined as it is, its
     * links not followed, from the root down.
     */
    private static String untrusted(Path library, int jarOwner) throws IOException {
        Path walked = library.getRoot();
        String problem = untrusted(walked, "the root directory", DIRECTORY, jarOwner);
        // By index: a for-each over the names loads Path's iterator class from the runtime image.
        for (int index = 0; index < library.getNameCount(); index++) {
            if (problem != null) {
                return problem;
            }
            walked = walked.resolve(library.getName(index));
            problem = walked.equals(library)
                    ? untrusted(walked, "it", REGULAR, jarOwner)
                    : untrusted(walked, "its directory " + walked, DIRECTORY, jarOwner);
        }
        return problem;
    }

    /** Why {@code path}, called {@code which}, is not trusted as a {@code type}, or null. */
    private static String untrusted(Path path, String which, int type, int jarOwner) throws IOException {
        Map<String, Object> attributes = attributes(path);
        int mode = (Integer) attributes.get("mode");
        int owner = (Integer) attributes.get("uid");
        if ((mode & TYPE) == LINK) {
            return which + " is a symbolic link";
        }
        if ((mode & TYPE) != type) {
            return which + " is not a " + (type == REGULAR ? "regular file" : "directory");
        }
        if (owner != 0 && owner != jarOwner) {
            return which + " is owned by uid " + owner + ", neither root nor the jar's owner (uid " + jarOwner + ")";
        }
        // A sticky directory on the way (/tmp, /var/tmp) is safe: others may add names there, but only an entry's
        // owner can rename or remove it, and the next entry is checked to be root's or the jar owner's. The state
        // directory's walk (core's TrustedDirectory) takes the same rule.
        if ((mode & GROUP_OR_OTHERS_WRITE) != 0 && !(type == DIRECTORY && (mode & STICKY) != 0)) {
            return which + " is writable by group or others (mode 0" + Integer.toOctalString(mode & 07777) + ")";
        }
        return null;
    }

    /**
     * Why the file is not the jar's copy ({@code entry}), or null when its size and CRC-32 are the same. Read
     * through a FileInputStream, not a FileChannel opened with NOFOLLOW_LINKS: the channel's first use loads the
     * JDK's libnet and a dozen classes (1 to 2 ms), and O_NOFOLLOW would add nothing here. The walk above has
     * seen that no name on the path is a link, only root and the jar's owner could make one since, and
     * System.load opens the path again by name in any case, so the guarantee is the walk's, for both opens.
     */
    private static String differs(Path library, ZipEntry entry) throws IOException {
        byte[] bytes;
        try (FileInputStream in = new FileInputStream(library.toFile())) {
            bytes = in.readAllBytes();
        }
        if (bytes.length != entry.getSize()) {
            return "it has " + bytes.length + " bytes, the jar's copy " + entry.getSize() + " (another build?)";
        }
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, bytes.length);
        if (crc.getValue() != entry.getCrc()) {
            return "its CRC-32 is " + Long.toHexString(crc.getValue()) + ", the jar's copy's "
                    + Long.toHexString(entry.getCrc()) + " (another build, or damaged)";
        }
        return null;
    }

    private static int jarOwner(Path realJar) throws IOException {
        try {
            return (Integer) attributes(realJar).get("uid");
        } catch (NoSuchFileException e) {
            // Not the library's absence, which the caller reports as such: the jar went away since toRealPath.
            throw new IOException("cannot read the owner of the jar " + realJar + ": " + e, e);
        }
    }

    private static Map<String, Object> attributes(Path path) throws IOException {
        return Files.readAttributes(path, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
    }
}

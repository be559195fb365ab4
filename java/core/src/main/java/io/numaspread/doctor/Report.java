// SPDX-License-Identifier: Apache-2.0
package io.numaspread.doctor;

import java.util.List;

/**
 * The doctor's report: the kernel release it judged by, and every finding in a fixed order (kernel features,
 * backends, privileges, this process, other managers).
 *
 * @param kernelRelease {@code /proc/sys/kernel/osrelease}, or empty when it could not be read
 */
public record Report(String kernelRelease, List<Finding> findings) {
    public Report {
        findings = List.copyOf(findings);
    }

    public List<Finding> in(Finding.Area area) {
        return findings.stream().filter(finding -> finding.area() == area).toList();
    }
}

# Build rules for the krsid container image (an OCI archive) and the manifests beside it.
# Included by the top-level Makefile; `make install` puts both in /usr/lib/krsi/k8s/, where
# the kube guest suite loads and plays them.

KRSID_IMAGE := $(BUILD)/krsid-image.tar

$(KRSID_IMAGE): $(BUILD)/krsid $(BUILD)/krsictl $(BUILD)/krsi-oci-hook $(BUILD)/krsi.bpf.o \
		agent/k8s/image.sh agent/k8s/entrypoint.sh $(wildcard agent/profiles/*.json)
	@agent/k8s/image.sh $(BUILD) $@

krsid-image: $(KRSID_IMAGE)

k8s-install: $(KRSID_IMAGE)
	install -D -m 0644 $(KRSID_IMAGE) $(DESTDIR)/usr/lib/krsi/k8s/krsid-image.tar
	install -m 0644 agent/k8s/krsi.yaml $(DESTDIR)/usr/lib/krsi/k8s/krsi.yaml

install: k8s-install

.PHONY: krsid-image k8s-install

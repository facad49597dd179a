/** The banner of the public address's warning (Runtime/PublicAddressWarning.ts), shown to Admins on every page while it applies. */
export const AddressBanner = ({ warning }: { warning: string | undefined }) =>
  warning === undefined ? null : (
    <div class="flash error address-banner" role="note" aria-label="Public address">
      <strong>Links point at the wrong address.</strong> {warning}
    </div>
  )

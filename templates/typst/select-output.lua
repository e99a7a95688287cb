-- evalreport: choose, for each notebook cell output, the representation Typst can use.
-- Run on `pandoc -f ipynb --ipynb-output=all` so that every representation is present:
--   * images (image/png, image/svg+xml)         -> kept (charts); wider than the text -> 100%
--   * text/markdown                             -> parsed as Markdown (tables, notes, headings)
--   * raw typst                                 -> kept
--   * text/html, text/latex, ...                -> dropped
--   * text/plain                                -> kept only when nothing better exists
-- Code (cell inputs) and stderr streams are removed; cell wrappers are unwrapped.

-- Widest image, in CSS pixels, shown at natural size (A4 text width at 96 px/in).
local MAX_WIDTH_PX = 620

local function has_class(el, name)
  for _, c in ipairs(el.classes) do
    if c == name then return true end
  end
  return false
end

local function single_image(block)
  if (block.t == "Para" or block.t == "Plain") and #block.content == 1
      and block.content[1].t == "Image" then
    return block.content[1]
  end
  return nil
end

local function fit_image(img)
  local w = img.attributes["width"]
  local n = w and tonumber(w)
  if n and n > MAX_WIDTH_PX then
    img.attributes["width"] = "100%"
    img.attributes["height"] = nil
  elseif n then
    -- Keep the aspect ratio from the width alone.
    img.attributes["height"] = nil
  end
  return img
end

-- Boxes for the fenced divs our display objects write (evalreport.report.display).
local function typst(text) return pandoc.RawBlock("typst", text) end

local STYLES = {
  ["er-note"] = {
    "#block(width: 100%, inset: (x: 10pt, y: 7pt), fill: rgb(\"#eef6fb\"), "
      .. "stroke: (left: 3pt + rgb(\"#0072b2\")), breakable: false)[",
    "]" },
  ["er-note-warning"] = {
    "#block(width: 100%, inset: (x: 10pt, y: 7pt), fill: rgb(\"#fdf1ea\"), "
      .. "stroke: (left: 3pt + rgb(\"#d55e00\")), breakable: false)[",
    "]" },
  ["er-table-notes"] = { "#align(center)[#text(size: 8.5pt, fill: luma(70))[", "]]" },
}

function styled(blocks)
  return blocks:walk({
    Div = function(div)
      for _, key in ipairs({ "er-note-warning", "er-note", "er-table-notes" }) do
        if has_class(div, key) then
          local out = pandoc.Blocks({ typst(STYLES[key][1]) })
          out:extend(div.content)
          out:insert(typst(STYLES[key][2]))
          return out
        end
      end
    end,
  })
end

local function choose(blocks)
  local image, markdown, typst, plain
  for _, b in ipairs(blocks) do
    local img = single_image(b)
    if img and not image then
      image = img
    elseif b.t == "RawBlock" then
      local f = b.format:lower()
      if f == "markdown" and not markdown then
        markdown = b.text
      elseif f == "typst" and not typst then
        typst = b
      end
    elseif b.t == "CodeBlock" and not plain then
      plain = b
    elseif b.t ~= "RawBlock" and not plain then
      plain = b
    end
  end
  if image then
    local caption = image.attributes["caption"]
    image.attributes["caption"] = nil
    image = fit_image(image)
    if caption and caption ~= "" then
      return { pandoc.Figure({ pandoc.Plain({ image }) }, { pandoc.Plain(pandoc.Inlines(caption)) }) }
    end
    return { pandoc.Para({ image }) }
  elseif typst then
    return { typst }
  elseif markdown then
    return styled(pandoc.read(markdown, "markdown").blocks)
  elseif plain then
    return { plain }
  end
  return {}
end

local function output_div(div)
  if has_class(div, "stream") then
    if has_class(div, "stderr") then return {} end
    return div.content
  end
  if has_class(div, "error") then
    return div.content
  end
  return choose(div.content)
end

local function cell_div(div)
  local kept = {}
  local code = has_class(div, "code")
  for _, b in ipairs(div.content) do
    if b.t == "Div" and has_class(b, "output") then
      for _, o in ipairs(output_div(b)) do table.insert(kept, o) end
    elseif not (code and b.t == "CodeBlock") then  -- a direct CodeBlock is the cell's input
      table.insert(kept, b)
    end
  end
  return kept
end

-- Top-down, so a cell is seen before its outputs; cells are not descended into again.
return {
  {
    traverse = "topdown",
    Div = function(div)
      if has_class(div, "cell") then
        return cell_div(div), false
      elseif has_class(div, "output") then
        return output_div(div), false
      end
    end,
  },
}
